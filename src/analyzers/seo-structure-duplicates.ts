import { isTag, isText, type ChildNode } from 'domhandler';
import { truncate, type ParsedPage } from './parse';
import { firstCanonical } from './seo-links';
import { evidence, isIndexable, ownUrls, shallowestFirst, somePaths, structureOutcome } from './seo-structure-common';
import { nearDuplicateGroups, simhash, textWords } from './simhash';
import { normalizeUrl, plural } from './site-util';
import { resourceSubject } from './subject';
import { defineAnalyzer, foldFindings, type FindingDraft, type Observed } from './types';

/**
 * SEO_DUPLICATE_CONTENT (docs/analyzers.md, Site structure): indexable pages whose main text is the
 * same or nearly so — 64-bit simhashes of word 3-shingles at most 3 bits apart (simhash.ts) — and
 * that canonical links do not already declare to be one document. Each page keeps its simhash,
 * word count, canonical URL and the first words of its text.
 */

/** Pages with fewer words of main text are not compared: short texts share too many shingles by chance. */
export const MIN_WORDS = 50;

/** Site chrome, not main text. */
const CHROME_TAGS = new Set(['head', 'nav', 'header', 'footer', 'aside', 'script', 'style', 'noscript', 'template']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo']);
/** Inline elements do not separate words (`<b>W</b>ord` is one word); every other element does. */
const INLINE_TAGS = new Set(
  'a abbr b bdi bdo cite code data dfn em font i kbd mark q s samp small span strong sub sup time u var wbr'.split(' '),
);

/** The page's text outside the site chrome (CHROME_TAGS, CHROME_ROLES), in document order. */
export function mainText(p: Pick<ParsedPage, 'doc'>): string {
  if (!p.doc) return '';
  const chunks: string[] = [];
  // null marks the end of a block element: a word boundary.
  const stack: (ChildNode | null)[] = [...p.doc.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === null) chunks.push(' ');
    else if (isText(node)) chunks.push(node.data);
    else if (isTag(node) && !CHROME_TAGS.has(node.name)) {
      const roles = (node.attribs.role ?? '').toLowerCase().split(/\s+/);
      if (roles.some((r) => CHROME_ROLES.has(r))) continue;
      if (!INLINE_TAGS.has(node.name)) {
        chunks.push(' ');
        stack.push(null);
      }
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return chunks.join('');
}

interface TextObservation {
  /** simhash (16 hex digits); null under MIN_WORDS words. */
  hash: string | null;
  words: number;
  canonical: string | null;
  /** The first characters of the main text, for the evidence. */
  excerpt: string;
}

function observeText(p: ParsedPage): TextObservation | null {
  if (!isIndexable(p)) return null;
  const text = mainText(p);
  const words = textWords(text);
  const start = Math.max(0, text.search(/\S/));
  return {
    hash: words.length >= MIN_WORDS ? simhash(words) : null,
    words: words.length,
    canonical: firstCanonical(p),
    excerpt: truncate(
      text
        .slice(start, start + 400)
        .replace(/\s+/g, ' ')
        .trim(),
      60,
    ),
  };
}

type Candidate = Observed<TextObservation> & { readonly order: number; readonly depth: number | null };

/**
 * The document each page stands for: its canonical URL, followed from page to page while the target
 * declares another one (a loop ends at its smallest URL); the page's own URL without a canonical.
 */
function documentKeys(observed: readonly Observed<TextObservation | null>[]): (o: Candidate) => string {
  const canonicalOf = new Map<string, string>();
  for (const o of observed)
    if (o.value?.canonical)
      for (const u of ownUrls(o.page)) if (!canonicalOf.has(u)) canonicalOf.set(u, o.value.canonical);
  return (o) => {
    let key = normalizeUrl(o.url) ?? o.url;
    const visited = [key];
    for (let next = canonicalOf.get(key); next !== undefined && next !== key; next = canonicalOf.get(key)) {
      if (visited.includes(next)) return visited.slice(visited.indexOf(next)).sort()[0]!;
      visited.push(next);
      key = next;
    }
    return key;
  };
}

/**
 * The pages of a near-duplicate group that are reported: none when they all stand for one document;
 * else every page but those whose canonical names another page of the group (they defer to it).
 */
function reportedPages(group: readonly Candidate[], keyOf: (o: Candidate) => string): Candidate[] {
  const keys = new Map(group.map((o) => [o, keyOf(o)]));
  if (new Set(keys.values()).size < 2) return [];
  const groupUrls = new Set(group.flatMap((o) => ownUrls(o.page)));
  return group.filter((o) => {
    const key = keys.get(o)!;
    return ownUrls(o.page).includes(key) || !groupUrls.has(key);
  });
}

function groupFinding(pages: readonly Candidate[], origin: string): FindingDraft {
  const sorted = [...pages].sort(shallowestFirst);
  const urls = sorted.map((o) => o.url);
  const identical = sorted.every((o) => o.value.hash === sorted[0]!.value.hash);
  const min = sorted.reduce((m, o) => Math.min(m, o.value.words), Number.POSITIVE_INFINITY);
  const max = sorted.reduce((m, o) => Math.max(m, o.value.words), 0);
  const words = min === max ? plural(min, 'word') : `${min.toLocaleString('en-US')}–${plural(max, 'word')}`;
  return {
    message: `${plural(urls.length, 'page')} have ${identical ? 'the same' : 'nearly the same'} main text (${words}).`,
    evidence: evidence(
      `${somePaths(urls, origin)}: ${identical ? 'identical' : 'near-identical'} main text starting "${sorted[0]!.value.excerpt}"`,
    ),
    urls,
    // The group's smallest address: stable whatever the crawl order.
    subject: urls.map((u) => resourceSubject(u, origin)).sort()[0]!,
  };
}

/** Units: indexable pages; a page of a reported group fails. One finding per group, largest first. */
export const duplicateContent = defineAnalyzer<TextObservation | null>({
  code: 'SEO_DUPLICATE_CONTENT',
  observe: observeText,
  finish(snapshot, observed) {
    const candidates: Candidate[] = [];
    observed.forEach((o, order) => {
      if (o.value?.hash) candidates.push({ ...(o as Observed<TextObservation>), order, depth: o.page.depth });
    });
    const keyOf = documentKeys(observed);
    const reported = nearDuplicateGroups(candidates.map((c) => c.value.hash!))
      .map((g) =>
        reportedPages(
          g.map((i) => candidates[i]!),
          keyOf,
        ),
      )
      .filter((g) => g.length > 1)
      .sort((a, b) => b.length - a.length);
    const findings = foldFindings(
      reported.map((g) => groupFinding(g, snapshot.origin)),
      'groups of duplicate pages',
    );
    const units = observed.filter((o) => o.value !== null).length;
    const affected = reported.reduce((n, g) => n + g.length, 0);
    return structureOutcome(units > 0, units, affected, findings);
  },
});
