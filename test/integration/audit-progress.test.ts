import assert from 'node:assert/strict';
import { serveSlowSite } from '../support/sites';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';

describe('progress of a running audit', () => {
  it('is projected to the audit row as pages crawled so far, while the crawl runs', async () => {
    const site = await serveSlowSite(700);
    try {
      const { db } = await getStack();
      const account = await newAccount('pro');
      const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal(accepted.status, 202, accepted.text);
      const auditId = accepted.body.audit_id as string;
      const seen: number[] = [];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const row = await db('audits').where({ id: auditId }).first('status', 'pages_crawled');
        if (row.status === 'running' && row.pages_crawled !== null) seen.push(row.pages_crawled);
        if (row.status === 'completed' || row.status === 'failed' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const done = await waitForAudit(account.liveKey, auditId);
      assert.equal(done.body.status, 'completed', done.text);
      assert.ok(seen.length > 0, 'pages crawled were visible while the audit ran');
      assert.ok(
        seen.every((n, i) => n >= 1 && (i === 0 || n >= seen[i - 1]!)),
        `never decreasing: ${seen}`,
      );
      assert.ok(seen[seen.length - 1]! <= done.body.crawl.pages_crawled);
    } finally {
      await site.close();
    }
  });
});
