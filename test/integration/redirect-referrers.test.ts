import assert from 'node:assert/strict';
import { api, auditUntilEnded, newAccount } from '../support/stack';
import { REREAD_SITE, serveRereadSite } from '../support/reread-site';

interface PageRow {
  url: string;
  status: number;
  inlinks: number;
}

/**
 * The durable crawl counts a page reached twice (directly, and through a redirect to it) once as a
 * referrer, whichever step reads it first: the pages listing's inlinks and the broken link's count
 * are the distinct pages linking (test/unit/reread-referrers.test.ts has the in-process crawl).
 */
describe('referrers of a page the durable crawl reached again through redirects', function () {
  this.timeout(180_000);
  let site: { origin: string; close(): Promise<void> };
  let key: string;
  let audit: {
    audit_id: string;
    findings: { id: string; analyzer: string; message: string; count: number; urls: string[] }[];
  };

  before(async () => {
    site = await serveRereadSite();
    key = (await newAccount('pro')).liveKey;
    const done = await auditUntilEnded(key, site.origin, { timeoutMs: 150_000 });
    assert.equal(done.body.status, 'completed', done.text);
    audit = done.body;
  });
  after(() => site.close());

  it('lists each target with its distinct referring pages as inlinks', async () => {
    const listed = await api<{ data: PageRow[] }>('GET', `/v1/audits/${audit.audit_id}/pages?limit=200`, { key });
    assert.equal(listed.status, 200, listed.text);
    const row = (p: string) => listed.body.data.find((r) => r.url === `${site.origin}${p}`);
    assert.equal(row('/old')?.status, 301);
    assert.equal(row('/moved')?.status, 301);
    assert.equal(row('/t')?.inlinks, REREAD_SITE.referrers.length);
    assert.equal(row('/gone')?.inlinks, REREAD_SITE.referrers.length);
    // The sitemap's aliases of known pages (linked, or only listed) are not crawled again.
    for (const alias of REREAD_SITE.sitemapAliases) assert.equal(row(alias), undefined, alias);
    assert.equal(row('/docs/')?.status, 200);
    assert.equal(row('/guide/')?.status, 200);
  });

  it('names the broken page with the exact count of pages linking to it', () => {
    const broken = audit.findings.filter((f) => f.analyzer === 'SEO_BROKEN_LINK');
    assert.equal(broken.length, 1);
    const referrers = REREAD_SITE.referrers.map((p) => `${site.origin}${p}`);
    assert.match(broken[0]!.message, new RegExp(`linked from ${referrers.length} pages`));
    // The finding's URLs are the target and every page linking to it, each once.
    assert.deepEqual([...broken[0]!.urls].sort(), [`${site.origin}/gone`, ...referrers].sort());
    assert.equal(broken[0]!.count, referrers.length + 1);
  });
});
