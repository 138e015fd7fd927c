import assert from 'node:assert/strict';
import { text } from 'node:stream/consumers';
import { syntheticCrawlFacts } from '../../src/audits/synthetic/crawl-facts';
import { ApiError } from '../../src/errors';
import { csvStream, PAGE_CSV_COLUMNS } from '../../src/presenters/crawl-exports';
import { decodePositionCursor, encodePositionCursor } from '../../src/presenters/position-cursor';
import type { AuditJson } from '../../src/schemas/audit';

async function* from<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}

describe('CSV exports', () => {
  it('write RFC 4180: a header, CRLF, quoted commas, quotes and line breaks, empty nulls, true/false', async () => {
    const csv = await text(
      csvStream(
        ['a', 'b', 'c', 'd'],
        from([
          { a: 'Shop, "Best" prices', b: 12, c: null, d: true },
          { a: 'two\nlines', b: 0, c: undefined, d: false },
        ]),
      ),
    );
    assert.equal(csv, 'a,b,c,d\r\n"Shop, ""Best"" prices",12,,true\r\n"two\nlines",0,,false\r\n');
  });

  it('write the header alone when there are no rows', async () => {
    assert.equal(await text(csvStream(PAGE_CSV_COLUMNS, from([]))), `${PAGE_CSV_COLUMNS.join(',')}\r\n`);
  });

  it('defuse text cells a spreadsheet would run as formulas, and only those', async () => {
    const cells = ['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', '\tx', '\uFF1D1', 'a=b', ' =x', "'kept", ''];
    const csv = await text(csvStream(['cell', 'n'], from(cells.map((cell) => ({ cell, n: -1 })))));
    assert.deepEqual(csv.split('\r\n'), [
      'cell,n',
      `"'=HYPERLINK(""x"")",-1`,
      "'+1,-1",
      "'-2,-1",
      "'@SUM(A1),-1",
      "'\tx,-1",
      "'\uFF1D1,-1",
      'a=b,-1',
      ' =x,-1',
      "'kept,-1",
      ',-1',
      '',
    ]);
  });

  it('end with the error of a failing source, told to onError', async () => {
    const told: Error[] = [];
    async function* failing() {
      yield { a: 'x' };
      throw new Error('database gone');
    }
    await assert.rejects(text(csvStream(['a'], failing(), (err) => told.push(err))), /database gone/);
    assert.equal(told[0]?.message, 'database gone');
  });
});

describe('position cursors', () => {
  it('round-trip a position of the list they were made for', () => {
    const cursor = encodePositionCursor(['pages', 'aud_1'], 41);
    assert.match(cursor, /^[A-Za-z0-9_-]+$/);
    assert.equal(decodePositionCursor(cursor, ['pages', 'aud_1']), 41);
    assert.equal(
      decodePositionCursor(encodePositionCursor(['finding_urls', 'aud_1', 'fnd_2'], 0), [
        'finding_urls',
        'aud_1',
        'fnd_2',
      ]),
      0,
    );
  });

  it('refuse cursors of another list, made up or malformed, as invalid_request', () => {
    const refused = (cursor: string, list: Parameters<typeof decodePositionCursor>[1] = ['pages', 'aud_1']) =>
      assert.throws(
        () => decodePositionCursor(cursor, list),
        (err: unknown) => err instanceof ApiError && err.code === 'invalid_request' && /cursor/.test(err.message),
        cursor,
      );
    refused(encodePositionCursor(['pages', 'aud_2'], 3));
    refused(encodePositionCursor(['finding_urls', 'aud_1', 'fnd_1'], 3));
    refused(encodePositionCursor(['finding_urls', 'aud_1', 'fnd_1'], 3), ['finding_urls', 'aud_1', 'fnd_2']);
    for (const made of [
      ['pages', 'aud_1', -1],
      ['pages', 'aud_1', 1.5],
      ['pages', 'aud_1', '3'],
      ['pages', 'aud_1', 2 ** 31],
    ])
      refused(Buffer.from(JSON.stringify(made)).toString('base64url'));
    for (const junk of ['abc', '!!!', 'x'.repeat(600), Buffer.from('{"a":1}').toString('base64url')]) refused(junk);
  });
});

describe('synthetic crawl facts', () => {
  const page = (url: string, depth: number | null, status = 200) => ({
    url,
    status_code: status,
    depth,
    ttfb_ms: 100,
    bytes: 1000,
    content_type: 'text/html; charset=utf-8',
    title: `Title of ${url}`,
  });
  const finding = (id: string, analyzer: string, urls: string[]) => ({
    id,
    fingerprint: 'fp_1',
    analyzer,
    category: 'seo' as const,
    severity: 'medium' as const,
    title: 't',
    message: 'm',
    recommendation: 'r',
    urls,
    evidence: 'e',
  });
  const audit = {
    crawl: {
      pages_crawled: 5,
      page_budget: 100,
      duration_ms: 1,
      pages: [
        page('https://e.com/', 0),
        page('https://e.com/a', 1),
        page('https://e.com/b', 1),
        page('https://e.com/a/x', 2, 404),
        page('https://e.com/sitemap-only', null),
      ],
    },
    findings: [
      finding('fnd_1', 'SEO_NOINDEX', ['https://e.com/b']),
      finding('fnd_2', 'SEO_HTTP_STATUS_ERROR', ['https://e.com/a/x', 'https://e.com/style.css']),
      finding('fnd_3', 'SEC_HSTS_MISSING', []),
    ],
  } as unknown as AuditJson;

  it('list the pages in order with link counts that follow from the depths', () => {
    const facts = syntheticCrawlFacts(audit);
    assert.deepEqual(
      facts.pages.map((p) => [p.url, p.status, p.depth, p.inlinks, p.outlinks, p.indexable, p.canonical]),
      [
        ['https://e.com/', 200, 0, 2, 2, true, 'https://e.com/'],
        ['https://e.com/a', 200, 1, 1, 2, true, 'https://e.com/a'],
        ['https://e.com/b', 200, 1, 1, 2, false, null],
        ['https://e.com/a/x', 404, 2, 2, 0, false, null],
        ['https://e.com/sitemap-only', 200, null, 0, 0, true, 'https://e.com/sitemap-only'],
      ],
    );
    assert.deepEqual(syntheticCrawlFacts(audit), facts, 'deterministic');
  });

  it("give each finding's URLs in order, with depth and referrers of a listed page, else null", () => {
    assert.deepEqual(syntheticCrawlFacts(audit).findingUrls, [
      { finding_id: 'fnd_1', position: 0, url: 'https://e.com/b', depth: 1, referrers: 1 },
      { finding_id: 'fnd_2', position: 0, url: 'https://e.com/a/x', depth: 2, referrers: 2 },
      { finding_id: 'fnd_2', position: 1, url: 'https://e.com/style.css', depth: null, referrers: null },
    ]);
  });
});
