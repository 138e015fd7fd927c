import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';

/** A site of 13 pages whose pages answer slowly, so its crawl lasts a few seconds. */
async function slowSite(delayMs: number): Promise<{ origin: string; close(): Promise<void> }> {
  const links = Array.from({ length: 12 }, (_, i) => `<a href="/p${i}">Page ${i}</a>`).join(' ');
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${req.url}</title></head><body>${req.url === '/' ? links : '<p>hi</p>'}</body></html>`;
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('progress of a running audit', () => {
  it('is projected to the audit row as pages crawled so far, while the crawl runs', async () => {
    const site = await slowSite(700);
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
