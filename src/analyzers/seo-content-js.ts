import { truncate } from './parse';
import type { RenderedPage } from './rendered-facts';
import { MIN_WORDS } from './seo-structure-duplicates';
import { plural } from './site-util';
import { resourceSubject } from './subject';
import { EVIDENCE_MAX, notApplicable, siteAnalyzer, type FindingDraft } from './types';

/**
 * SEO_CONTENT_NEEDS_JS (docs/analyzers.md, Site structure): pages whose links or main text exist only
 * once JavaScript has run. It reads what the crawl's rendering step recorded for the pages it rendered
 * (application shells; every page with `render: "all"`), counted the same way in the HTML response
 * and in the rendered DOM (rendered-facts.ts). Not applicable when no page was rendered.
 */

/** Links need JavaScript when at least half of the rendered page's distinct link URLs are not in the response. */
export function linksNeedJs(r: RenderedPage): boolean {
  return r.linksOnlyRendered > 0 && r.linksOnlyRendered * 2 >= r.linksRendered;
}

/** Main text needs JavaScript when the rendered page has at least MIN_WORDS words and the response at most half as many. */
export function textNeedsJs(r: RenderedPage): boolean {
  return r.wordsRendered >= MIN_WORDS && r.wordsInResponse * 2 <= r.wordsRendered;
}

/** "links 0 → 3, words of main text 2 → 182": the response's counts, then the rendered page's. */
function counts(r: RenderedPage): string {
  return `links ${r.linksInResponse} → ${r.linksRendered}, words of main text ${r.wordsInResponse} → ${r.wordsRendered}`;
}

/** "/a: …; /b: …; and 3 more": each page's counts, as many as the evidence holds. */
function listed(pages: readonly { url: string; text: string }[], origin: string): string {
  const parts: string[] = [];
  let length = 0;
  for (const [i, p] of pages.entries()) {
    const part = `${resourceSubject(p.url, origin)}: ${p.text}`;
    // Room is kept for "; and N more".
    if (i > 0 && length + part.length + 16 > EVIDENCE_MAX) {
      parts.push(`and ${pages.length - i} more`);
      break;
    }
    parts.push(part);
    length += part.length + 2;
  }
  return truncate(parts.join('; '), EVIDENCE_MAX);
}

/**
 * Units: the pages rendered. A page fails when its links or its main text appear only after
 * rendering; one finding names every such page, its evidence each page's counts in the response and
 * after rendering. Pages that could not be rendered are reported at info level and not judged.
 */
export const contentNeedsJs = siteAnalyzer('SEO_CONTENT_NEEDS_JS', (snapshot, observed) => {
  const needing: { url: string; text: string }[] = [];
  const unrenderable: { url: string; text: string }[] = [];
  let rendered = 0;
  for (const { url, page } of observed) {
    const r = page.rendered;
    if (r?.status === 'unrenderable') unrenderable.push({ url, text: r.reason });
    if (r?.status !== 'rendered') continue;
    rendered++;
    if (linksNeedJs(r) || textNeedsJs(r)) needing.push({ url, text: counts(r) });
  }
  if (rendered === 0) return notApplicable();
  const findings: FindingDraft[] = [];
  if (needing.length > 0)
    findings.push({
      message: `${plural(needing.length, 'page')} show${needing.length === 1 ? 's' : ''} ${needing.length === 1 ? 'its' : 'their'} links or main text only once JavaScript has run (counts in the HTML response → after rendering).`,
      evidence: listed(needing, snapshot.origin),
      urls: needing.map((p) => p.url),
    });
  if (unrenderable.length > 0)
    findings.push({
      // Application shells, or with render: "all" any page: what a visitor with JavaScript sees is unknown.
      message: `${plural(unrenderable.length, 'page')} could not be rendered in the browser, so what ${unrenderable.length === 1 ? 'it shows' : 'they show'} once JavaScript has run was not checked.`,
      evidence: listed(unrenderable, snapshot.origin),
      urls: unrenderable.map((p) => p.url),
      severity: 'info',
    });
  const score = 1 - needing.length / rendered;
  return { status: needing.length > 0 ? 'fail' : 'pass', score, findings };
});
