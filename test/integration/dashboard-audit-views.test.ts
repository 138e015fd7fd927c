import assert from 'node:assert/strict';
import type { FindingUrlFact, PageFact } from '../../src/audits/crawl-facts';
import { PAGE_SORT_COLUMNS, type PageSortColumn } from '../../src/audits/page-order';
import { generatedPages, storeCompletedAudit, type StoredAudit } from '../support/dashboard-audits';
import { ownerSessionCookie } from '../support/dashboard-session';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';

interface Answer {
  status: number;
  type: string;
  text: string;
}

/**
 * The dashboard's views of an audit's crawl facts over plain HTTP (docs/dashboard.md): the pages
 * view's orders and filters against the same rows sorted here, its refusals, its CSV against the
 * API's, a finding's URLs page by page, and the status the audit page's script follows.
 */
describe('dashboard: pages view, finding URLs and audit status', function () {
  this.timeout(60_000);
  const domain = 'https://views.example.com';
  let account: TestAccount;
  let cookie: string;
  let stored: StoredAudit;
  let pages: PageFact[];
  const findingUrlCount = 130;

  const get = async (path: string): Promise<Answer> => {
    const { url } = await getStack();
    const response = await fetch(`${url}${path}`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  before(async () => {
    account = await newAccount('pro');
    cookie = await ownerSessionCookie(account);
    pages = generatedPages(domain, 120);
    let findingId = '';
    stored = await storeCompletedAudit({
      workspaceId: account.workspaceId,
      accountId: account.accountId,
      mode: 'test',
      domain,
      pages,
      change: (audit) => {
        const finding = audit.findings[0]!;
        findingId = finding.id;
        finding.urls = Array.from({ length: 100 }, (_, k) => `${domain}/broken/${k}`);
        finding.count = findingUrlCount;
      },
      findingUrls: [],
    });
    const { db } = await getStack();
    const urls: FindingUrlFact[] = Array.from({ length: findingUrlCount }, (_, position) => ({
      finding_id: findingId,
      position,
      url: `${domain}/broken/${position}`,
      depth: position % 3,
      referrers: position % 4,
    }));
    await db('audit_finding_urls').insert(urls.map((u) => ({ audit_id: stored.auditId, ...u })));
  });

  /** Every row of the view from `path` on, following "Next" to the end. */
  async function followNext(path: string): Promise<string[]> {
    const urls: string[] = [];
    for (let next: string | undefined = path, n = 0; next; n++) {
      assert.ok(n < 20, `${path} never ended`);
      const answer = await get(next);
      assert.equal(answer.status, 200, `${next}: ${answer.text.slice(0, 300)}`);
      const rows = [...answer.text.matchAll(/<th scope="row" class="url">([^<]*)/g)].map((m) => m[1]!);
      assert.ok(rows.length <= 50);
      urls.push(...rows);
      next = /<a href="([^"]+)">Next<\/a>/.exec(answer.text)?.[1]?.replace(/&amp;/g, '&');
      if (next) assert.equal(rows.length, 50, 'only the last page is short');
    }
    return urls;
  }

  it('lists the pages in every order and filter, keyset-paged with Next, exactly as sorted here', async () => {
    const base = `/test/audits/${stored.auditId}/pages`;
    const sortKey: Record<PageSortColumn, (p: PageFact) => string | number> = {
      url: (p) => p.url,
      status: (p) => p.status ?? 0,
      depth: (p) => p.depth ?? 2147483647,
      inlinks: (p) => p.inlinks,
      response_ms: (p) => p.response_ms,
      bytes: (p) => p.bytes,
    };
    const filters: Array<[string, (p: PageFact) => boolean]> = [
      ['', () => true],
      ['status=4xx', (p) => p.status !== null && p.status >= 400 && p.status < 500],
      [
        'status=200&min_depth=2&max_depth=3',
        (p) => p.status === 200 && p.depth !== null && p.depth >= 2 && p.depth <= 3,
      ],
      ['indexable=false', (p) => !p.indexable],
      // Each filter alone and together, as the cells of src/audits/page-order.ts divide them.
      ['status=404', (p) => p.status === 404],
      ['min_depth=3', (p) => p.depth !== null && p.depth >= 3],
      ['indexable=true&status=2xx', (p) => p.indexable && p.status !== null && p.status >= 200 && p.status < 300],
      ['max_depth=1&indexable=false', (p) => !p.indexable && p.depth !== null && p.depth <= 1],
    ];
    const seqOf = new Map(pages.map((p, seq) => [p, seq]));
    for (const [filter, keep] of filters) {
      const kept = pages.filter(keep);
      assert.deepEqual(
        await followNext(`${base}${filter ? `?${filter}` : ''}`),
        kept.map((p) => p.url),
        filter,
      );
      for (const column of PAGE_SORT_COLUMNS) {
        for (const order of ['asc', 'desc'] as const) {
          const sign = order === 'asc' ? 1 : -1;
          const key = sortKey[column];
          const expected = [...kept].sort((a, b) => {
            const [x, y] = [key(a), key(b)];
            const byKey = typeof x === 'string' ? (x < y ? -1 : x > y ? 1 : 0) : x - (y as number);
            return sign * (byKey || seqOf.get(a)! - seqOf.get(b)!);
          });
          const query = [filter, `sort=${column}&order=${order}`].filter(Boolean).join('&');
          assert.deepEqual(
            await followNext(`${base}?${query}`),
            expected.map((p) => p.url),
            query,
          );
        }
      }
    }
  });

  it('answers bad filter input with a 400 page that says what is wrong, never a 500', async () => {
    const base = `/test/audits/${stored.auditId}/pages`;
    const other = await get(`${base}?sort=bytes&order=desc`);
    const bytesCursor = /cursor=([^"&]+)/.exec(other.text)![1]!;
    const cases: Array<[string, RegExp]> = [
      ['status=abc', /Status must be a code from 100 to 599/],
      ['status=600', /Status must be a code/],
      ['status=1xx', /Status must be a code/],
      ['min_depth=-1', /Minimum depth must be a whole number/],
      ['max_depth=99999999999', /Maximum depth must be a whole number/],
      ['min_depth=4&max_depth=2', /Minimum depth \(4\) is greater than Maximum depth \(2\)/],
      ['indexable=maybe', /Indexable must be yes, no or any/],
      ['sort=password', /cannot be sorted that way/],
      ['sort=url&order=sideways', /order must be asc or desc/],
      ['cursor=garbage', /no longer exists/],
      // A cursor of another order is not followed: the list starts again.
      [`sort=url&cursor=${bytesCursor}`, /no longer exists/],
      [
        `cursor=${Buffer.from(JSON.stringify([stored.auditId, 'crawl', false, 1e300, 1e300])).toString('base64url')}`,
        /no longer exists/,
      ],
    ];
    for (const [query, message] of cases) {
      const answer = await get(`${base}?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.type, /^text\/html/);
      assert.match(answer.text, message, query);
      assert.match(answer.text, /role="alert"/, query);
      assert.doesNotMatch(answer.text, /Something went wrong/, query);
      // The list is still there, without the filter it could not use.
      assert.match(answer.text, /<th scope="row" class="url">/, query);
    }
  });

  it('offers the CSV of every page with the same bytes as the API', async () => {
    const answer = await get(`/test/audits/${stored.auditId}/pages`);
    assert.match(
      answer.text,
      new RegExp(`<a href="/test/audits/${stored.auditId}/pages.csv" download>Download CSV</a>`),
    );
    const { url } = await getStack();
    const fromDashboard = await fetch(`${url}/test/audits/${stored.auditId}/pages.csv`, { headers: { cookie } });
    assert.equal(fromDashboard.status, 200);
    assert.match(fromDashboard.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(fromDashboard.headers.get('content-disposition') ?? '', /attachment; filename="aud_[^"]+-pages\.csv"/);
    const fromApi = await api('GET', `/v1/audits/${stored.auditId}/pages.csv`, { key: account.testKey });
    assert.equal(fromApi.status, 200);
    const csv = await fromDashboard.text();
    assert.equal(csv, fromApi.text);
    assert.equal(csv.trimEnd().split('\r\n').length, pages.length + 1);
  });

  it("shows a finding's first URLs on the audit page and pages through all of them with Next", async () => {
    const finding = stored.audit.findings[0]!;
    const auditPage = await get(`/test/audits/${stored.auditId}`);
    assert.match(auditPage.text, new RegExp(`${findingUrlCount} URLs, the first 10 here`));
    let next = new RegExp(
      `href="(/test/audits/${stored.auditId}/findings/${finding.id}\\?cursor=[^"]+)">Next</a>`,
    ).exec(auditPage.text)?.[1];
    const seen: string[] = [];
    for (let n = 0; next; n++) {
      assert.ok(n < 10);
      const answer = await get(next.replace(/&amp;/g, '&'));
      assert.equal(answer.status, 200, answer.text.slice(0, 300));
      seen.push(...[...answer.text.matchAll(/<th scope="row" class="url"><code>([^<]*)<\/code>/g)].map((m) => m[1]!));
      next = /<a href="([^"]+)">Next<\/a>/.exec(answer.text)?.[1];
    }
    assert.deepEqual(
      seen,
      Array.from({ length: findingUrlCount - 10 }, (_, k) => `${domain}/broken/${k + 10}`),
    );
    const bad = await get(`/test/audits/${stored.auditId}/findings/${finding.id}?cursor=nonsense`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /no longer exists/);
    assert.equal((await get(`/test/audits/${stored.auditId}/findings/fnd_unknown`)).status, 404);
  });

  it('pages through the URLs the JSON lists for an audit stored before its facts', async () => {
    let findingId = '';
    const legacy = await storeCompletedAudit({
      workspaceId: account.workspaceId,
      accountId: account.accountId,
      mode: 'test',
      domain: 'https://legacy.example.com',
      change: (audit) => {
        const finding = audit.findings[0]!;
        findingId = finding.id;
        finding.urls = Array.from({ length: 30 }, (_, k) => `https://legacy.example.com/old/${k}`);
        delete finding.count;
      },
      findingUrls: [],
    });
    const auditPage = await get(`/test/audits/${legacy.auditId}`);
    const next = new RegExp(
      `href="(/test/audits/${legacy.auditId}/findings/${findingId}\\?cursor=[^"]+)">Next</a>`,
    ).exec(auditPage.text)?.[1];
    assert.ok(next, 'the audit page offers the rest');
    const rest = await get(next);
    assert.equal(rest.status, 200);
    assert.match(rest.text, /URLs 11–30 of 30/);
    assert.doesNotMatch(rest.text, />Next</);
  });

  it("answers the audit's status as the API's envelope, and nothing for another workspace's audit", async () => {
    const { url } = await getStack();
    const status = await fetch(`${url}/test/audits/${stored.auditId}/status`, { headers: { cookie } });
    assert.equal(status.status, 200);
    assert.deepEqual(await status.json(), {
      audit_id: stored.auditId,
      domain,
      status: 'completed',
      estimated_completion: null,
    });
    const stranger = await ownerSessionCookie(await newAccount('pro'));
    for (const path of ['', '/pages', '/pages.csv', '/status', `/findings/${stored.audit.findings[0]!.id}`]) {
      const answer = await fetch(`${url}/test/audits/${stored.auditId}${path}`, {
        headers: { cookie: stranger, accept: 'text/html' },
      });
      assert.equal(answer.status, 404, path);
    }
    // Nor in the other mode.
    assert.equal((await get(`/audits/${stored.auditId}/pages`)).status, 404);
  });
});
