import { STATUS_CODES } from 'node:http';
import { truncate } from './parse';
import { EVIDENCE_MAX, notApplicable, siteAnalyzer, siteOutcome, type Analyzer } from './types';

/** Site-level best practices (BP_SOFT_404). */

/**
 * The crawler requests a path that cannot exist. Only a 2xx answer (directly or after redirects,
 * e.g. to the home page) is a soft 404, and it fails whatever the page shows: the home page, or a
 * thin "not found" page served with 200. Any other answer is not a soft 404 and passes: a 404/410
 * error page is judged by its status alone, however short its text (a real custom 404 page with a
 * header, navigation and footer but few words is what sites should serve), and a 3xx/5xx final
 * status (a redirect loop, a server error) is not a soft 404 either.
 */
export const soft404 = siteAnalyzer('BP_SOFT_404', (snapshot) => {
  const probe = snapshot.notFoundProbe;
  if (!probe || probe.kind === 'unreachable') return notApplicable();
  if (probe.status < 200 || probe.status >= 300) return siteOutcome('pass');
  const reason = STATUS_CODES[probe.status] ?? '';
  const redirected = probe.finalUrl !== probe.url;
  const where = redirected ? ` after redirecting to ${probe.finalUrl}` : '';
  const evidence = `GET ${probe.url} → HTTP ${probe.status} ${reason}${where}`.trim();
  return siteOutcome('fail', [
    {
      message: `A URL that does not exist answers HTTP ${probe.status}${where} instead of 404 (a soft 404).`,
      evidence: truncate(evidence, EVIDENCE_MAX),
      urls: [probe.url],
    },
  ]);
});

export const BEST_PRACTICE_SITE_ANALYZERS: readonly Analyzer[] = [soft404];
