import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  iterateAuditPages,
  listAuditPages,
  listFindingUrls,
  replaceCrawlFacts,
} from '../../src/audits/crawl-facts-store';
import type { PageFact } from '../../src/audits/crawl-facts';
import { syntheticAudit } from '../../src/audits/synthetic';
import { publishChange } from '../../src/db/change-feed';
import { createAuditClient } from '../../src/client';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

type Page = PageFact;
interface Finding {
  id: string;
  analyzer: string;
  category: string;
  severity: string;
  title: string;
  urls: string[];
  count?: number;
}

const PAGE_FIELDS = [
  'url',
  'status',
  'depth',
  'inlinks',
  'outlinks',
  'title',
  'content_type',
  'bytes',
  'response_ms',
  'indexable',
  'canonical',
  'redirect_to',
];

/** Follows next_cursor from `path` (which has its query already) to the end; every page's size is checked. */
async function pageThrough<T>(key: string, path: string, limit: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const url: string = `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const response = await api<{ data: T[]; has_more: boolean; next_cursor: string | null }>('GET', url, { key });
    assert.equal(response.status, 200, `${url}: ${response.text}`);
    const { data, has_more, next_cursor } = response.body;
    assert.ok(data.length <= limit);
    assert.equal(has_more, next_cursor !== null);
    if (has_more) assert.equal(data.length, limit, 'only the last page is short');
    items.push(...data);
    if (!has_more) return items;
    cursor = next_cursor;
  }
  throw new Error(`${path} never ended`);
}

/** RFC 4180 records (quoted fields with doubled quotes and line breaks), CRLF-separated. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') (record.push(field), (field = ''));
    else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      ((record = []), (field = ''), i++);
    } else field += c;
  }
  assert.equal(field + record.join(''), '', 'the CSV ends with CRLF');
  return records;
}

function cell(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

async function badRequest(key: string, path: string, parameter: string): Promise<void> {
  const response = await api('GET', path, { key });
  assert.equal(response.status, 400, `${path}: ${response.text}`);
  assert.equal(response.body.error.code, 'invalid_request', path);
  assert.match(response.body.error.message, new RegExp(parameter), path);
  assert.match(response.body.error.request_id, /^req_/);
  assert.match(response.body.error.docs_url, /#invalid_request$/);
}

/**
 * A domain whose synthetic test audit lists at least `min` pages: the synthetic site is drawn from the
 * workspace and the domain, and a new account's workspace id is random, so the domain is chosen here.
 */
function domainWithPages(workspaceId: string, min: number): string {
  const at = new Date().toISOString();
  for (let i = 0; ; i++) {
    const domain = `https://pages-${i}.example.com`;
    const input = {
      auditId: 'aud_X',
      workspaceId,
      domain,
      tier: 'pro' as const,
      createdAt: at,
      startedAt: at,
      completedAt: at,
    };
    if (syntheticAudit(input).crawl.pages.length >= min) return domain;
  }
}

/** An audit row written straight to the table (no workflow): queued, or completed with this JSON. */
async function insertAudit(account: TestAccount, mode: 'test' | 'live', resultJson: string | null): Promise<string> {
  const { db } = await getStack();
  const id = `aud_PG${randomUUID().replace(/-/g, '').slice(0, 22).toUpperCase()}`;
  const now = new Date();
  await db('audits').insert({
    id,
    workspace_id: account.workspaceId,
    account_id: account.accountId,
    mode,
    domain: 'https://inserted.example.com',
    site_key: 'example.com',
    tier: 'pro',
    status: resultJson === null ? 'queued' : 'completed',
    charged: false,
    result_json: resultJson,
    created_at: now,
    completed_at: resultJson === null ? null : now,
  });
  await publishChange(db, { kind: 'audit', id });
  return id;
}

describe('audit pages, finding URLs and CSV exports', function () {
  this.timeout(60_000);
  let account: TestAccount;
  let auditId: string;
  let findings: Finding[];
  let pages: Page[];

  before(async () => {
    account = await newAccount('pro');
    const accepted = await api('POST', '/v1/audits', {
      key: account.testKey,
      body: { domain: domainWithPages(account.workspaceId, 5) },
    });
    assert.equal(accepted.status, 202, accepted.text);
    auditId = accepted.body.audit_id;
    const done = await waitForAudit(account.testKey, auditId);
    assert.equal(done.body.status, 'completed', done.text);
    findings = done.body.findings;
    pages = await pageThrough<Page>(account.testKey, `/v1/audits/${auditId}/pages`, 200);
  });

  it('lists every crawled URL in crawl order, the same through any page size', async () => {
    const audit = (await api('GET', `/v1/audits/${auditId}`, { key: account.testKey })).body;
    assert.ok(pages.length >= 5, 'a test audit lists several pages');
    assert.deepEqual(
      pages.map((p) => [p.url, p.status, p.depth, p.title, p.content_type, p.bytes, p.response_ms]),
      audit.crawl.pages.map((p: any) => [p.url, p.status_code, p.depth, p.title, p.content_type, p.bytes, p.ttfb_ms]),
    );
    for (const page of pages) assert.deepEqual(Object.keys(page), PAGE_FIELDS);
    for (const limit of [1, 2, 7])
      assert.deepEqual(await pageThrough(account.testKey, `/v1/audits/${auditId}/pages`, limit), pages);
    const first = await api('GET', `/v1/audits/${auditId}/pages`, { key: account.testKey });
    assert.equal(first.body.data.length, Math.min(50, pages.length), 'limit defaults to 50');
  });

  it('filters by status code or class, depth bounds and indexability, alone and combined', async () => {
    const path = `/v1/audits/${auditId}/pages`;
    const cases: [string, (p: Page) => boolean][] = [
      ['status=200', (p) => p.status === 200],
      ['status=404', (p) => p.status === 404],
      ['status=2xx', (p) => p.status !== null && p.status >= 200 && p.status < 300],
      ['status=4xx', (p) => p.status !== null && p.status >= 400 && p.status < 500],
      ['status=5xx', (p) => p.status !== null && p.status >= 500],
      ['min_depth=1', (p) => p.depth !== null && p.depth >= 1],
      ['max_depth=1', (p) => p.depth !== null && p.depth <= 1],
      ['min_depth=1&max_depth=1', (p) => p.depth === 1],
      ['min_depth=0&max_depth=0', (p) => p.depth === 0],
      ['indexable=true', (p) => p.indexable],
      ['indexable=false', (p) => !p.indexable],
      [
        'status=2xx&min_depth=1&indexable=true',
        (p) => p.status! >= 200 && p.status! < 300 && p.depth! >= 1 && p.indexable,
      ],
    ];
    for (const [query, keep] of cases) {
      const expected = pages.filter(keep);
      assert.deepEqual(await pageThrough(account.testKey, `${path}?${query}`, 2), expected, query);
    }
    // The synthetic site is seeded by the (random) workspace: the cases above hold whatever it holds, and the
    // store's test below has 4xx pages at every depth.
    assert.ok(pages.some((p) => p.depth === 1));
    // A cursor is a position in the list: with other filters the list goes on after it.
    const firstThree = await api('GET', `${path}?limit=3`, { key: account.testKey });
    const rest = await api('GET', `${path}?limit=200&status=2xx&cursor=${firstThree.body.next_cursor}`, {
      key: account.testKey,
    });
    assert.deepEqual(
      rest.body.data,
      pages.slice(3).filter((p) => p.status! >= 200 && p.status! < 300),
    );
  });

  it('refuses bad query parameters with 400 invalid_request naming the parameter', async () => {
    const path = `/v1/audits/${auditId}/pages`;
    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['status=600', 'status'],
      ['status=6xx', 'status'],
      ['status=099', 'status'],
      ['status=1xx', 'status'],
      ['status=abc', 'status'],
      ['status=2XX', 'status'],
      ['status=200&status=404', 'status'],
      ['min_depth=-1', 'min_depth'],
      ['max_depth=x', 'max_depth'],
      ['min_depth=99999999999', 'min_depth'],
      ['min_depth=3&max_depth=2', 'min_depth'],
      ['indexable=maybe', 'indexable'],
      ['indexable=1', 'indexable'],
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=', 'cursor'],
      ['unknown=1', 'unknown'],
    ])
      await badRequest(account.testKey, `${path}?${query}`, parameter);
    // A cursor of another list: the audits list, another finding's URLs.
    const audits = await api('GET', '/v1/audits?limit=1', { key: account.testKey });
    if (audits.body.next_cursor)
      await badRequest(account.testKey, `${path}?cursor=${audits.body.next_cursor}`, 'cursor');
    const withUrls = findings.find((f) => f.urls.length >= 2);
    if (withUrls) {
      const urls = await api('GET', `/v1/audits/${auditId}/findings/${withUrls.id}/urls?limit=1`, {
        key: account.testKey,
      });
      await badRequest(account.testKey, `${path}?cursor=${urls.body.next_cursor}`, 'cursor');
    }
    for (const query of ['limit=0', 'limit=201', 'limit=abc', 'cursor=zzz'])
      await badRequest(
        account.testKey,
        `/v1/audits/${auditId}/findings/${findings[0]!.id}/urls?${query}`,
        query.split('=')[0]!,
      );
  });

  it("pages through every URL of each finding, one at a time, exactly as many as the finding's", async () => {
    const pageByUrl = new Map(pages.map((p) => [p.url, p]));
    for (const finding of findings) {
      const urls = await pageThrough<{ url: string; depth: number | null; referrers: number | null }>(
        account.testKey,
        `/v1/audits/${auditId}/findings/${finding.id}/urls`,
        1,
      );
      assert.equal(urls.length, finding.count ?? finding.urls.length, finding.id);
      assert.deepEqual(
        urls.map((u) => u.url),
        finding.urls,
        finding.id,
      );
      for (const url of urls) {
        assert.deepEqual(Object.keys(url), ['url', 'depth', 'referrers']);
        const page = pageByUrl.get(url.url);
        assert.equal(url.depth, page ? page.depth : null);
      }
    }
  });

  it('answers 404 for an unknown finding, another workspace, and test keys asking for live audits', async () => {
    for (const findingId of ['fnd_zzzz999', 'not-a-finding', 'fnd_' + 'a'.repeat(80)]) {
      const response = await api('GET', `/v1/audits/${auditId}/findings/${findingId}/urls`, { key: account.testKey });
      assert.equal(response.status, 404, findingId);
      assert.equal(response.body.error.code, 'finding_not_found');
      if (findingId === 'not-a-finding') assert.doesNotMatch(response.body.error.message, /not-a-finding/);
    }
    const stranger = await newAccount('pro');
    const live = await insertAudit(account, 'live', JSON.stringify({ findings: [] }));
    const paths = (id: string) => [
      `/v1/audits/${id}/pages`,
      `/v1/audits/${id}/findings/${findings[0]!.id}/urls`,
      `/v1/audits/${id}/pages.csv`,
      `/v1/audits/${id}/findings.csv`,
    ];
    for (const [key, id] of [
      [stranger.testKey, auditId],
      [account.liveKey, auditId],
      [account.testKey, live],
      [account.testKey, 'aud_doesnotexist'],
    ] as const)
      for (const path of paths(id)) {
        const response = await api('GET', path, { key });
        assert.equal(response.status, 404, `${path}: ${response.text}`);
        assert.equal(response.body.error.code, 'audit_not_found', path);
      }
    assert.equal((await api('GET', paths(auditId)[0]!)).status, 401, 'no key');
  });

  it('answers the status envelope while the audit is not completed', async () => {
    const queued = await insertAudit(account, 'test', null);
    for (const path of [
      `/v1/audits/${queued}/pages`,
      `/v1/audits/${queued}/findings/fnd_1/urls`,
      `/v1/audits/${queued}/pages.csv`,
      `/v1/audits/${queued}/findings.csv`,
    ]) {
      const response = await api('GET', path, { key: account.testKey });
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type')!, /^application\/json/);
      assert.equal(response.body.audit_id, queued);
      assert.equal(response.body.status, 'queued');
    }
    // No workflow runs it: removed, so later tests that wait for an idle stack are not held up.
    await (await getStack()).db('audits').where({ id: queued }).delete();
  });

  it('exports pages.csv: header, every page in order, attachment named after the audit', async () => {
    const response = await api('GET', `/v1/audits/${auditId}/pages.csv`, { key: account.testKey });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${auditId}-pages.csv"`);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    assert.ok(response.headers.get('x-ratelimit-limit'));
    const [header, ...rows] = parseCsv(response.text);
    assert.deepEqual(header, PAGE_FIELDS);
    assert.deepEqual(
      rows,
      pages.map((p) => PAGE_FIELDS.map((f) => cell((p as unknown as Record<string, unknown>)[f]))),
    );
  });

  it('exports findings.csv: a row per finding and URL, one with an empty url for a finding without URLs', async () => {
    const response = await api('GET', `/v1/audits/${auditId}/findings.csv`, { key: account.testKey });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-disposition'), `attachment; filename="${auditId}-findings.csv"`);
    const [header, ...rows] = parseCsv(response.text);
    assert.deepEqual(header, [
      'finding_id',
      'analyzer',
      'category',
      'severity',
      'title',
      'count',
      'url',
      'depth',
      'referrers',
    ]);
    const expected = findings.flatMap((f) => {
      const fields = [f.id, f.analyzer, f.category, f.severity, f.title, String(f.count ?? f.urls.length)];
      return f.urls.length === 0 ? [[...fields, '']] : f.urls.map((url) => [...fields, url]);
    });
    assert.deepEqual(
      rows.map((row) => row.slice(0, 7)),
      expected,
    );
    const pageByUrl = new Map(pages.map((p) => [p.url, p]));
    for (const row of rows) {
      assert.equal(row.length, 9);
      assert.equal(row[7], cell(pageByUrl.get(row[6]!)?.depth), 'depth of the URL');
      if (row[6] === '') assert.deepEqual(row.slice(7), ['', '']);
    }
  });

  it('is typed in the client: the listings with their filters, the CSV as text', async () => {
    const { url } = await getStack();
    const client = createAuditClient({ baseUrl: `${url}/v1`, apiKey: account.testKey });
    const listed = await client.GET('/audits/{audit_id}/pages', {
      params: { path: { audit_id: auditId }, query: { limit: 200, status: '2xx', min_depth: 0, indexable: true } },
    });
    assert.equal(listed.response.status, 200);
    assert.ok(listed.data && 'data' in listed.data);
    assert.deepEqual(
      listed.data.data,
      pages.filter((p) => p.status! >= 200 && p.status! < 300 && p.depth !== null && p.indexable),
    );
    const csv = await client.GET('/audits/{audit_id}/findings.csv', {
      params: { path: { audit_id: auditId } },
      parseAs: 'text',
    });
    assert.match(String(csv.data), /^finding_id,analyzer,/);
    const bad = await client.GET('/audits/{audit_id}/findings/{finding_id}/urls', {
      params: { path: { audit_id: auditId, finding_id: 'fnd_nope' } },
    });
    assert.equal(bad.error?.error.code, 'finding_not_found');
  });

  it('quotes commas, quotes and line breaks and defuses formula-looking cells in both exports', async () => {
    const { db } = await getStack();
    const tricky: PageFact = {
      url: 'https://pages.example.com/sale',
      status: 200,
      depth: 1,
      inlinks: 3,
      outlinks: 4,
      title: 'Shop, "Best" prices\nnow',
      content_type: 'text/html',
      bytes: 10,
      response_ms: 20,
      indexable: true,
      canonical: null,
      redirect_to: null,
    };
    const formula: PageFact = { ...tricky, url: 'https://pages.example.com/f', title: '=HYPERLINK("http://evil")' };
    const json = JSON.stringify({
      findings: [
        { id: 'fnd_1', analyzer: 'SEO_X', category: 'seo', severity: 'low', title: '+cmd', urls: [formula.url] },
        { id: 'fnd_2', analyzer: 'SEO_Y', category: 'seo', severity: 'low', title: 'a, "b"', urls: [] },
      ],
    });
    const id = await insertAudit(account, 'test', json);
    await replaceCrawlFacts(db, id, {
      pages: [tricky, formula],
      findingUrls: [{ finding_id: 'fnd_1', position: 0, url: formula.url, depth: 1, referrers: 3 }],
    });
    const csv = (await api('GET', `/v1/audits/${id}/pages.csv`, { key: account.testKey })).text;
    assert.ok(csv.includes('"Shop, ""Best"" prices\nnow"'), csv);
    assert.ok(csv.includes(`,"'=HYPERLINK(""http://evil"")",`), csv);
    assert.equal(parseCsv(csv)[1]![5], tricky.title);
    const findingsCsv = (await api('GET', `/v1/audits/${id}/findings.csv`, { key: account.testKey })).text;
    assert.deepEqual(parseCsv(findingsCsv).slice(1), [
      ['fnd_1', 'SEO_X', 'seo', 'low', "'+cmd", '1', formula.url, '1', '3'],
      ['fnd_2', 'SEO_Y', 'seo', 'low', 'a, "b"', '0', '', '', ''],
    ]);
  });
});

describe('crawl facts store', function () {
  this.timeout(60_000);

  it('replaces facts idempotently, pages by keyset in chunks, and stores unstorable text', async () => {
    const { db } = await getStack();
    const account = await newAccount('pro');
    const id = await insertAudit(account, 'live', '{"findings":[]}');
    const page = (i: number): PageFact => ({
      url: `https://big.example.com/p/${i}`,
      status: i % 10 === 0 ? 404 : i % 7 === 0 ? 301 : 200,
      depth: i % 6,
      inlinks: i,
      outlinks: 1,
      title: i === 5 ? 'nul\u0000 and \ud800 lone' : `Page ${i}`,
      content_type: 'text/html',
      bytes: i,
      response_ms: 1,
      indexable: i % 3 !== 0,
      canonical: null,
      redirect_to: null,
    });
    const facts = {
      pages: Array.from({ length: 2500 }, (_, i) => page(i)),
      findingUrls: Array.from({ length: 2100 }, (_, i) => ({
        finding_id: 'fnd_1',
        position: i,
        url: `https://big.example.com/p/${i}`,
        depth: null,
        referrers: null,
      })),
    };
    await replaceCrawlFacts(db, id, facts);
    await replaceCrawlFacts(db, id, facts);
    await Promise.all([replaceCrawlFacts(db, id, facts), replaceCrawlFacts(db, id, facts)]);
    assert.equal(Number((await db('audit_pages').where({ audit_id: id }).count({ n: '*' }))[0]!.n), 2500);
    assert.equal(Number((await db('audit_finding_urls').where({ audit_id: id }).count({ n: '*' }))[0]!.n), 2100);

    const seen: number[] = [];
    for await (const row of iterateAuditPages(db, id, 300)) seen.push(row.seq);
    assert.deepEqual(
      seen,
      Array.from({ length: 2500 }, (_, i) => i),
    );
    const stored = await listAuditPages(db, id, { limit: 1, after: 4 });
    assert.equal(stored.rows[0]!.title, 'nul\uFFFD and \uFFFD lone');

    let after: number | undefined;
    const notFound: number[] = [];
    for (;;) {
      const result = await listAuditPages(db, id, { limit: 37, after, status: { class: 4 }, minDepth: 2, maxDepth: 4 });
      notFound.push(...result.rows.map((r) => r.seq));
      if (!result.hasMore) break;
      after = result.rows[result.rows.length - 1]!.seq;
    }
    assert.deepEqual(
      notFound,
      facts.pages
        .map((p, i) => [p, i] as const)
        .filter(([p]) => p.status === 404 && p.depth! >= 2 && p.depth! <= 4)
        .map(([, i]) => i),
    );
    const urls = await listFindingUrls(db, id, 'fnd_1', { limit: 1000, after: 1999 });
    assert.deepEqual(
      urls.rows.map((r) => r.position),
      Array.from({ length: 100 }, (_, i) => 2000 + i),
    );
    assert.equal(urls.hasMore, false);

    await replaceCrawlFacts(db, id, { pages: facts.pages.slice(0, 3), findingUrls: [] });
    assert.equal((await listAuditPages(db, id, { limit: 10 })).rows.length, 3, 'replaced as a whole');
    // The tables are written side by side: one refusing its rows fails the call, and a retry rewrites both.
    const duplicate = {
      finding_id: 'fnd_1',
      position: 0,
      url: 'https://big.example.com/p/0',
      depth: null,
      referrers: null,
    };
    await assert.rejects(
      replaceCrawlFacts(db, id, { pages: facts.pages, findingUrls: [duplicate, duplicate] }),
      /duplicate key/,
    );
    await replaceCrawlFacts(db, id, { pages: facts.pages.slice(0, 2), findingUrls: [duplicate] });
    assert.equal(Number((await db('audit_pages').where({ audit_id: id }).count({ n: '*' }))[0]!.n), 2);
    assert.equal(Number((await db('audit_finding_urls').where({ audit_id: id }).count({ n: '*' }))[0]!.n), 1);
    await db('audits').where({ id }).delete();
    assert.equal(Number((await db('audit_pages').where({ audit_id: id }).count({ n: '*' }))[0]!.n), 0, 'cascade');
  });
});
