/**
 * Disagreements with Lighthouse that are differences of definition, not defects of ours (each is
 * written down in docs/analyzers.md, "Compared with Lighthouse"). A pair they explain stays in the
 * per-check rows and is left out of the second total only.
 */
import type { LhAudit, Verdict } from './checks';

export interface Difference {
  check: string;
  /** The disagreement it explains: we fail and Lighthouse does not (FP), or the reverse (FN). */
  kind: 'FP' | 'FN';
  reason: string;
  /**
   * Whether it explains the disagreement on this page (its HTML as crawled, Lighthouse's audits, and
   * the messages of our findings of the check that name the page).
   */
  applies(
    page: { body: string | null },
    lighthouse: Readonly<Record<string, LhAudit | undefined>>,
    ours: readonly string[],
  ): boolean;
}

export const DIFFERENCES: readonly Difference[] = [
  {
    check: 'link-text',
    kind: 'FP',
    reason:
      "we match a link's text against every language's list; Lighthouse only against the language the page or link declares",
    applies: (page) => /<html\b[^>]*\slang\s*=\s*["']?[a-z]/i.test(page.body ?? ''),
  },
  {
    check: 'errors-in-console',
    kind: 'FN',
    reason:
      "Chromium's own request for /favicon.ico (the site has none) answered 404 during Lighthouse's run and not during our stage's: whether it falls within the run varies",
    applies: (_page, lh) => {
      const urls = lh['errors-in-console']?.itemUrls ?? [];
      return urls.length > 0 && urls.every((u) => new URL(u).pathname === '/favicon.ico');
    },
  },
];

/** The documented difference that explains this pair's disagreement, if any. */
export function differenceFor(
  check: string,
  ours: Verdict,
  lighthouse: Verdict,
  page: { body: string | null },
  audits: Readonly<Record<string, LhAudit | undefined>> = {},
  ourMessages: readonly string[] = [],
): Difference | undefined {
  const kind = ours === 'fail' && lighthouse !== 'fail' ? 'FP' : ours === 'pass' && lighthouse === 'fail' ? 'FN' : null;
  if (kind === null) return undefined;
  return DIFFERENCES.find((d) => d.check === check && d.kind === kind && d.applies(page, audits, ourMessages));
}
