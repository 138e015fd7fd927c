import type { Tier } from '../schemas/audit';

/** Pages rendered per audit, home page included (docs/analyzers.md, "Browser stage"). */
export const SAMPLE_SIZE: Record<Tier, number> = { free: 1, pro: 5, team: 10, enterprise: 25 };

/** What sampling needs of a crawled page (a SnapshotPage has it). */
export interface CrawledPageLinks {
  readonly url: string;
  readonly finalUrl: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** null: reached only from a sitemap. */
  readonly depth: number | null;
  /** How many distinct crawled pages link here. */
  readonly linkedFrom?: number;
}

/**
 * The pages the browser stage renders: the home page, then the most-linked crawled HTML pages that
 * answered 200 (ties: shallower first, then by URL, so the choice is stable), each final URL once,
 * up to the tier's sample size. The home page is the crawl's first page, rendered even when it did
 * not answer 200 (the stage then says why it could not be rendered).
 */
export function samplePages(pages: readonly CrawledPageLinks[], tier: Tier): string[] {
  const size = SAMPLE_SIZE[tier];
  const home = pages.find((page) => page.depth === 0) ?? pages[0];
  if (!home) return [];
  const chosen = [home.finalUrl];
  const candidates = pages
    .filter((page) => page !== home && page.status === 200 && isHtml(page))
    .sort(
      (a, b) =>
        (b.linkedFrom ?? 0) - (a.linkedFrom ?? 0) ||
        (a.depth ?? Number.MAX_SAFE_INTEGER) - (b.depth ?? Number.MAX_SAFE_INTEGER) ||
        (a.finalUrl < b.finalUrl ? -1 : a.finalUrl > b.finalUrl ? 1 : 0),
    );
  for (const page of candidates) {
    if (chosen.length >= size) break;
    if (!chosen.includes(page.finalUrl)) chosen.push(page.finalUrl);
  }
  return chosen;
}

function isHtml(page: CrawledPageLinks): boolean {
  const raw = page.headers['content-type'];
  const type = (Array.isArray(raw) ? raw[0] : raw) ?? '';
  return /^\s*(text\/html|application\/xhtml\+xml)/i.test(String(type));
}
