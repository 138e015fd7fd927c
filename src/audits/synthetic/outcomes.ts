import { isBrowserAnalyzerCode, type HtmlAnalyzerCode } from '../../analyzers/browser-analyzers';
import { CATALOG, type AnalyzerCode } from '../../analyzers/catalog';
import { OUTCOME_RATES, type OutcomeRates } from './outcome-rates';
import type { Rng, RngStreams } from './rng';
import type { Site } from './site';

/** Each analyzer's drawn status, then made consistent between analyzers as the real ones would be. */

export interface Outcome {
  status: 'pass' | 'warn' | 'fail' | 'not_applicable';
  /** Share of pages affected (page checks), 1 for site checks. */
  share: number;
}

const NOT_APPLICABLE: Outcome = { status: 'not_applicable', share: 0 };

const HTTPS_DEPENDENT: readonly AnalyzerCode[] = [
  'SEC_TLS_CERT_INVALID',
  'SEC_TLS_CERT_EXPIRING',
  'SEC_TLS_LEGACY_PROTOCOL',
  'SEC_TLS_WEAK_KEY',
  'SEC_HSTS_MISSING',
  'SEC_HSTS_WEAK',
  'SEC_MIXED_CONTENT',
  'SEC_HTTP_NOT_REDIRECTED',
];
const NEEDS_MAIL: readonly AnalyzerCode[] = [
  'EMAIL_SPF_MISSING',
  'EMAIL_SPF_WEAK',
  'EMAIL_DMARC_MISSING',
  'EMAIL_DMARC_WEAK',
];

/** Neglected sites fail more often, well-kept ones less; rare critical failures stay rare. */
function adjusted(p: number, quality: number): number {
  return Math.min(0.97, p * (2.8 - 2.6 * quality));
}

function draw(rates: OutcomeRates, quality: number, rng: Rng): Outcome {
  // Fixed number of draws per analyzer, so one analyzer's outcome never shifts another's.
  const [rNa, rOutcome, rSitewide, rShare] = [rng.next(), rng.next(), rng.next(), rng.next()];
  if (rates.na !== undefined && rNa < rates.na) return NOT_APPLICABLE;
  const fail = adjusted(rates.fail, quality);
  const warn = adjusted(rates.warn ?? 0, quality);
  const status = rOutcome < fail ? 'fail' : rOutcome < fail + warn ? 'warn' : 'pass';
  if (status === 'pass') return { status, share: 0 };
  if (rates.kind === 'site') return { status, share: 1 };
  const sitewide = rates.sitewide ? rSitewide < 0.8 : rSitewide < 0.25;
  return { status, share: sitewide ? 1 : 0.04 + rShare * 0.6 };
}

/** The catalog's HTML analyzers, in catalog order (the browser stage's are drawn in browser.ts). */
export const HTML_CATALOG = CATALOG.filter(
  (e): e is (typeof CATALOG)[number] & { code: HtmlAnalyzerCode } => !isBrowserAnalyzerCode(e.code),
);

/** Every HTML analyzer's outcome for the site at `domain`. */
export function drawOutcomes(domain: string, site: Site, stream: RngStreams): Map<AnalyzerCode, Outcome> {
  const outcomes = new Map<AnalyzerCode, Outcome>();
  for (const entry of HTML_CATALOG)
    outcomes.set(entry.code, draw(OUTCOME_RATES[entry.code], site.quality, stream(`analyzer:${entry.code}`)));

  // Consistency between analyzers, as the real ones would report it.
  const httpsDown = domain.startsWith('http://') && stream('https').chance(0.35);
  outcomes.set('SEC_HTTPS_UNAVAILABLE', { status: httpsDown ? 'fail' : 'pass', share: httpsDown ? 1 : 0 });
  if (httpsDown) for (const code of HTTPS_DEPENDENT) outcomes.set(code, NOT_APPLICABLE);
  const sitewideFail = (code: AnalyzerCode) => outcomes.get(code)!.status === 'fail' && outcomes.get(code)!.share === 1;
  if (sitewideFail('SEC_HSTS_MISSING')) outcomes.set('SEC_HSTS_WEAK', NOT_APPLICABLE);
  if (sitewideFail('SEC_CSP_MISSING')) outcomes.set('SEC_CSP_UNSAFE', NOT_APPLICABLE);
  if (sitewideFail('BP_VIEWPORT_MISSING')) outcomes.set('A11Y_ZOOM_DISABLED', NOT_APPLICABLE);
  for (const entry of HTML_CATALOG) {
    const dnsEmail = entry.category === 'dns_email';
    if (dnsEmail && !site.dnsAvailable) outcomes.set(entry.code, NOT_APPLICABLE);
    else if (NEEDS_MAIL.includes(entry.code) && !site.sendsMail) outcomes.set(entry.code, NOT_APPLICABLE);
    else if (entry.code === 'EMAIL_NO_MAIL_HYGIENE' && site.sendsMail) outcomes.set(entry.code, NOT_APPLICABLE);
  }
  if (outcomes.get('EMAIL_SPF_MISSING')!.status === 'fail') outcomes.set('EMAIL_SPF_WEAK', NOT_APPLICABLE);
  if (outcomes.get('EMAIL_DMARC_MISSING')!.status === 'fail') outcomes.set('EMAIL_DMARC_WEAK', NOT_APPLICABLE);
  return outcomes;
}
