import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, auditUntilEnded, newAccount } from '../support/stack';

/**
 * A generated site larger and deeper than the old caps (2,000 pages, 5 clicks, 20 findings per
 * analyzer, 10 referrers): page i links to pages 2i+1 and 2i+2, so the deepest pages are 11 clicks
 * from the home page. Every 7th page shows an image without alt text; every 50th links to a page of
 * its own that answers 404.
 */
const PAGES = 2_500;
const BROKEN_EVERY = 50;
const NO_ALT_EVERY = 7;

function pathOf(i: number): string {
  return i === 0 ? '/' : `/p/${i}`;
}

function pageHtml(i: number): string {
  const children = [2 * i + 1, 2 * i + 2].filter((c) => c < PAGES).map(pathOf);
  if (i % BROKEN_EVERY === 0) children.push(`/missing/${i}`);
  const links = children.map((href) => `<li><a href="${href}">Catalogue entry ${href}</a></li>`).join('');
  const image = i % NO_ALT_EVERY === 0 ? '<img src="/photo.png" width="40" height="40">' : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme catalogue page number ${i}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Entry ${i}</h1>${image}<ul>${links}</ul></main></body></html>`;
}

function serveTree(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const match = url === '/' ? 0 : /^\/p\/(\d+)$/.exec(url) ? Number(url.slice(3)) : null;
    if (match !== null && match < PAGES) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageHtml(match));
    } else if (url === '/photo.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=86400' }).end('png');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}

interface Finding {
  id: string;
  analyzer: string;
  urls: string[];
  count: number;
}

async function allFindingUrls(key: string, auditId: string, findingId: string) {
  const rows: { url: string; depth: number | null; referrers: number | null }[] = [];
  let cursor: string | null = null;
  for (;;) {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await api('GET', `/v1/audits/${auditId}/findings/${findingId}/urls?${query}`, { key });
    assert.equal(page.status, 200, page.text);
    rows.push(...page.body.data);
    if (!page.body.has_more) return rows;
    cursor = page.body.next_cursor;
  }
}

describe('whole-site audits (a site larger and deeper than the old caps)', function () {
  this.timeout(240_000);
  let site: { origin: string; close(): Promise<void> };
  let key: string;
  let audit: {
    audit_id: string;
    crawl: {
      pages_crawled: number;
      pages_discovered: number;
      budget_exhausted: boolean;
      pages: { depth: number | null }[];
    };
    findings: Finding[];
  };

  before(async () => {
    site = await serveTree();
    key = (await newAccount('pro')).liveKey;
    const done = await auditUntilEnded(key, site.origin, { timeoutMs: 200_000 });
    assert.equal(done.body.status, 'completed', done.text);
    audit = done.body;
  });
  after(() => site.close());

  it('crawls every page to the deepest level (no depth limit), with the broken targets spending no budget', () => {
    const broken = Math.ceil(PAGES / BROKEN_EVERY);
    assert.equal(audit.crawl.pages_crawled, PAGES + broken);
    assert.equal(audit.crawl.pages_discovered, PAGES + broken);
    assert.equal(audit.crawl.budget_exhausted, false);
    // The JSON lists the first 100 pages, breadth first; the listing has them all.
    assert.equal(audit.crawl.pages.length, 100);
    assert.deepEqual(
      audit.crawl.pages.map((p) => p.depth),
      [...audit.crawl.pages.map((p) => p.depth)].sort((a, b) => a! - b!),
    );
  });

  it('names every page missing alt text: an exact count, 100 in the JSON, all of them through the urls endpoint', async () => {
    const alt = audit.findings.filter((f) => f.analyzer === 'A11Y_IMG_ALT_MISSING');
    assert.equal(alt.length, 1);
    const expected = Array.from(
      { length: Math.ceil(PAGES / NO_ALT_EVERY) },
      (_, k) => `${site.origin}${pathOf(k * NO_ALT_EVERY)}`,
    );
    assert.equal(alt[0]!.count, expected.length);
    assert.equal(alt[0]!.urls.length, 100);
    const rows = await allFindingUrls(key, audit.audit_id, alt[0]!.id);
    assert.deepEqual(rows.map((r) => r.url).sort(), [...expected].sort());
    // Shallowest first, each with its depth (page i of the tree is floor(log2(i + 1)) clicks deep).
    const depths = rows.map((r) => r.depth!);
    assert.deepEqual(
      depths,
      [...depths].sort((a, b) => a - b),
    );
    for (const row of rows) {
      const i = row.url.endsWith('/') ? 0 : Number(row.url.split('/').pop());
      assert.equal(row.depth, Math.floor(Math.log2(i + 1)), row.url);
    }
    assert.deepEqual(
      alt[0]!.urls,
      rows.slice(0, 100).map((r) => r.url),
    );
    assert.ok(Math.max(...depths) > 5, 'pages deeper than the old 5-click limit are named');
  });

  it('names every broken link target past the 20-findings cap, each with its exact referrer count', async () => {
    const findings = audit.findings.filter((f) => f.analyzer === 'SEO_BROKEN_LINK');
    assert.equal(findings.length, 20, 'at most 20 findings: the rest fold into the last one');
    const named = new Set<string>();
    for (const finding of findings) {
      const rows = await allFindingUrls(key, audit.audit_id, finding.id);
      assert.equal(rows.length, finding.count);
      for (const row of rows.filter((r) => r.url.includes('/missing/'))) {
        named.add(row.url);
        assert.equal(row.referrers, 1, `${row.url} is linked from one page`);
      }
    }
    const expected = Array.from(
      { length: Math.ceil(PAGES / BROKEN_EVERY) },
      (_, k) => `${site.origin}/missing/${k * BROKEN_EVERY}`,
    );
    assert.deepEqual([...named].sort(), expected.sort());
  });

  it('lists every crawled URL through /pages, and filters by depth past the old limit', async () => {
    let cursor: string | null = null;
    let total = 0;
    do {
      const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await api('GET', `/v1/audits/${audit.audit_id}/pages?${query}`, { key });
      assert.equal(page.status, 200, page.text);
      total += page.body.data.length;
      cursor = page.body.has_more ? page.body.next_cursor : null;
    } while (cursor);
    assert.equal(total, audit.crawl.pages_crawled);
    const deep = await api('GET', `/v1/audits/${audit.audit_id}/pages?min_depth=11&limit=200`, { key });
    assert.equal(deep.status, 200, deep.text);
    // Depth 11 holds pages 2047 … 2499 of the tree.
    assert.equal(deep.body.data.length, 200);
    assert.ok(deep.body.data.every((p: { depth: number }) => p.depth === 11));
  });
});
