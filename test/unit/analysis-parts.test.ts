/**
 * The analysis in parts (src/analyzers/observed-part.ts; docs/architecture.md, "Analysis in parts"):
 * pages observed a part at a time, possibly on other workers, stored and read back, then taken by the
 * analysis beside pages it observes itself, must give exactly what one analysis of every page gives.
 */
import assert from 'node:assert/strict';
import {
  ANALYZERS,
  runAnalyzers,
  runAnalyzersOverParts,
  type Analyzer,
  type PagePart,
  type SnapshotPage,
} from '../../src/analyzers';
import { decodePart, encodePart, observePart } from '../../src/analyzers/observed-part';
import { stylesheetTexts } from '../../src/analyzers/parse';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';
import { crawlFixtureSite } from '../support/fixture-crawl';
import { useLoopbackGuard } from '../support/loopback-guard';

const SITES = ['broken-seo', 'ssg-docs', 'accuracy'] as const;

/** Says what the analysis keeps of every page beside the observations: its URL, whether it is HTML, its page. */
const probe: Analyzer = {
  ...ANALYZERS[0]!,
  observe: () => null,
  finish: (_snapshot, observed) => ({
    status: 'warn',
    score: 0.5,
    findings: [
      {
        message: observed.map((o) => `${o.url} ${o.isHtml} ${o.page.url}`).join('\n'),
        evidence: '',
        urls: [],
      },
    ],
  }),
};
const LIST = [...ANALYZERS, probe];

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** Parts of `size` pages; every third part is left for the analysis to observe itself. */
async function partsOf(snapshot: CrawlSnapshot, size: number, list: readonly Analyzer[]): Promise<PagePart[]> {
  const parts: PagePart[] = [];
  for (let at = 0, n = 0; at < snapshot.pages.length; at += size, n++) {
    const pages = snapshot.pages.slice(at, at + size);
    if (n % 3 === 2) {
      parts.push({ bodies: from(pages.map((page) => page.body)) });
      continue;
    }
    const observed = await observePart(from(pages), stylesheetTexts(snapshot), list);
    assert.equal(observed.pages, pages.length);
    parts.push({ observed: decodePart(encodePart(observed)) });
  }
  return parts;
}

/** The stored crawl's pages as the analysis keeps them: no bodies. */
const withoutBodies = (snapshot: CrawlSnapshot): CrawlSnapshot => ({
  ...snapshot,
  pages: snapshot.pages.map((page): SnapshotPage => ({ ...page, body: null })),
});

describe('the analysis in parts', function () {
  this.timeout(60_000);
  useLoopbackGuard();

  for (const site of SITES) {
    it(`${site}: parts observed apart and stored give the same analyzers, findings and pages`, async () => {
      const crawled = await crawlFixtureSite(site);
      // A page that is not an HTML document, in the middle of a part.
      const text = `${crawled.origin}/notes.txt`;
      const plainText = { headers: { 'content-type': 'text/plain' }, body: 'notes', url: text, finalUrl: text };
      const snapshot = {
        ...crawled,
        pages: [crawled.pages[0]!, { ...crawled.pages[1]!, ...plainText }, ...crawled.pages.slice(1)],
      };
      assert.ok(snapshot.pages.length >= 3, `${site} has pages enough for three parts`);
      const size = Math.ceil(snapshot.pages.length / 5);
      const full = runAnalyzers(withoutBodies(snapshot), { analyzers: LIST });
      const fromParts = from(await partsOf(snapshot, size, LIST));
      const parted = await runAnalyzersOverParts(withoutBodies(snapshot), fromParts, { analyzers: LIST });
      const plain = (r: typeof full) => ({ ...r, pages: [...r.pages] });
      assert.deepEqual(plain(parted), plain(runAnalyzers(snapshot, { analyzers: LIST })));
      assert.notDeepEqual(plain(parted), plain(full), 'the parts saw the bodies the analysis did not');
      assert.match(parted.findings.at(-1)!.message, new RegExp(`^${text} false ${text}$`, 'm'));
      assert.ok(parted.findings.length > 1, 'the comparison covers findings');
    });
  }

  it('reports an analyzer that threw in a part as error, and the others as usual', async () => {
    const snapshot = await crawlFixtureSite('broken-seo');
    const throwing: Analyzer = {
      ...ANALYZERS[0]!,
      observe: (p) => {
        if (p.url.endsWith('/')) throw new Error('boom');
        return ANALYZERS[0]!.observe(p);
      },
    };
    const list = [throwing, ...ANALYZERS.slice(1)];
    const errors: string[] = [];
    const parted = await runAnalyzersOverParts(withoutBodies(snapshot), from(await partsOf(snapshot, 2, list)), {
      analyzers: list,
      onError: (code) => errors.push(code),
    });
    assert.deepEqual(errors, [throwing.code]);
    assert.equal(parted.analyzers[0]!.status, 'error');
    const full = runAnalyzers(snapshot);
    assert.deepEqual(parted.analyzers.slice(1), full.analyzers.slice(1));
  });

  it('refuses a part observed by other analyzers than the run has', async () => {
    const snapshot = await crawlFixtureSite('broken-seo');
    const [part] = await partsOf(snapshot, snapshot.pages.length, ANALYZERS.slice(1));
    await assert.rejects(runAnalyzersOverParts(withoutBodies(snapshot), from([part!])), /observed by other analyzers/);
  });
});
