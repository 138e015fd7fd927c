import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { ClosableConnection } from '../../temporal/closable-connection';
import { FileReportStorage } from '../../src/reports/file-storage';
import { SigningKeyring } from '../../src/reports/signing-keys';
import { createApp } from '../../src/api/app';
import { KeyAuthenticator } from '../../src/accounts/authenticator';
import { ReadModel } from '../../src/api/read-model';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { TemporalAuditScheduler } from '../../temporal/audit-scheduler';
import { TemporalSiteSchedules } from '../../temporal/site-schedules';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';
import { closedPort, serveSite, type LocalSite } from '../support/sites';

const GOOD_HOME = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme widgets for every workshop</title>
<meta name="description" content="Acme sells widgets."></head><body><h1>Acme</h1><img src="/a.png" alt="logo" width="10" height="10"></body></html>`;

describe('audits with a live key', () => {
  const sites: LocalSite[] = [];
  after(async () => {
    for (const site of sites) await site.close();
  });

  it('crawl the site (robots.txt first) and store a scored audit with real analyzer results', async () => {
    const site = await serveSite({
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
      '/': {
        headers: { 'x-powered-by': 'Express 4.18.2' },
        body: GOOD_HOME.replace('<title>Acme widgets for every workshop</title>', ''),
      },
    });
    sites.push(site);
    const account = await newAccount('pro');
    const accepted = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(accepted.status, 202, accepted.text);
    assert.match(accepted.body.audit_id, /^aud_[0-9A-Z]{26}$/);
    const done = await waitForAudit(account.liveKey, accepted.body.audit_id);
    assert.equal(done.body.status, 'completed', done.text);
    assertValidAuditJson(done.body);
    assert.equal(done.body.mode, 'live');
    assert.equal(done.body.crawl.pages_crawled, 1);
    assert.equal(site.requests[0], '/robots.txt', 'robots.txt is read before anything else');
    assert.ok(site.requests.includes('/'));
    const byCode = new Map(done.body.analyzers.map((a: { code: string; status: string }) => [a.code, a.status]));
    assert.equal(byCode.get('SEO_TITLE_MISSING'), 'fail');
    assert.equal(byCode.get('SEC_VERSION_DISCLOSURE'), 'fail');
    assert.equal(byCode.get('A11Y_LANG_INVALID'), 'pass');
    const disclosure = done.body.findings.find((f: { analyzer: string }) => f.analyzer === 'SEC_VERSION_DISCLOSURE');
    assert.ok(disclosure, 'a SEC_VERSION_DISCLOSURE finding');
    assert.match(disclosure.evidence, /Express 4\.18\.2/);
    assert.ok(done.body.score >= 0 && done.body.score <= 100);
    // The measured crawl speed feeds later estimates.
    const speed = await (await getStack()).db('crawl_speed').where({ id: 1 }).first();
    assert.ok(speed.samples >= 1 && speed.ms_per_page > 0);
  });

  it('count against the quota except the first audit of a domain', async () => {
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: GOOD_HOME } });
    sites.push(site);
    const account = await newAccount('pro');
    const first = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(first.headers.get('x-ratelimit-remaining'), '50');
    const second = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(second.status, 202);
    assert.notEqual(second.body.audit_id, first.body.audit_id);
    assert.equal(second.headers.get('x-ratelimit-remaining'), '49');
    const retrieval = await api('GET', `/v1/audits/${second.body.audit_id}`, { key: account.liveKey });
    assert.equal(retrieval.headers.get('x-ratelimit-remaining'), '49');
    const usage = await api('GET', '/v1/usage', { key: account.liveKey });
    assert.equal(usage.body.audits_used, 1);
    assert.equal(usage.body.audits_limit, 50);
    assert.equal(usage.body.audits_remaining, 49);
    await waitForAudit(account.liveKey, second.body.audit_id);
  });

  it('fail at once with robots_disallowed when robots.txt disallows the home page', async () => {
    const site = await serveSite({ '/robots.txt': { body: 'User-agent: *\nDisallow: /\n' }, '/': { body: GOOD_HOME } });
    sites.push(site);
    const account = await newAccount('pro');
    const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    const failed = await waitForAudit(account.liveKey, body.audit_id);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.error.code, 'robots_disallowed');
    assert.equal(failed.body.attempts, 1);
    assert.ok(!site.requests.includes('/'), 'the disallowed home page must not be fetched');
  });

  it('retry an unreachable site with the configured backoff, then fail with domain_unreachable', async () => {
    const account = await newAccount('pro');
    const origin = `http://127.0.0.1:${await closedPort()}`;
    const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: origin } });
    const failed = await waitForAudit(account.liveKey, body.audit_id, 30_000);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.error.code, 'domain_unreachable');
    assert.equal(failed.body.attempts, 4);
    const { service } = await getStack();
    const handle = service.temporal.client.workflow.getHandle(body.audit_id);
    assert.deepEqual(await handle.result(), { status: 'failed', attempts: 4 });
    const description = await handle.describe();
    assert.deepEqual((description.searchAttributes as Record<string, unknown[]>).AuditStatus, ['failed']);
  });

  it('retry a site that keeps answering 429, then fail with target_rate_limited', async () => {
    const site = await serveSite({
      '/robots.txt': { status: 429, headers: { 'retry-after': '0', 'content-type': 'text/plain' }, body: 'slow down' },
      '/': { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' },
    });
    sites.push(site);
    const account = await newAccount('pro');
    const { body } = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    const failed = await waitForAudit(account.liveKey, body.audit_id, 45_000);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.error.code, 'target_rate_limited');
    assert.equal(failed.body.attempts, 4);
  });

  it('refuse domains that resolve to blocked or no addresses, storing nothing', async () => {
    const account = await newAccount('pro');
    for (const domain of ['http://10.20.30.40', 'http://169.254.169.254', 'https://no-such-host.invalid']) {
      const response = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain } });
      assert.equal(response.status, 400, `${domain}: ${response.text}`);
      assert.equal(response.body.error.code, 'invalid_domain');
    }
    const { db } = await getStack();
    assert.equal((await db('audits').where({ workspace_id: account.workspaceId })).length, 0);
  });

  it('answer 503 and store or charge nothing when Temporal is unreachable', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: GOOD_HOME } });
    sites.push(site);
    const deadConnection = ClosableConnection.open({
      address: `127.0.0.1:${await closedPort()}`,
      connectTimeout: '1 second',
    });
    const authenticator = new KeyAuthenticator(stack.db, stack.clock);
    const app = createApp({
      db: stack.db,
      config: stack.config,
      clock: stack.clock,
      authenticator,
      readModel: new ReadModel(stack.db, null, authenticator),
      deliveries: { redeliver: async () => 'closed' as const },
      reports: { renderAndWait: async () => 'pending' as const },
      storage: new FileReportStorage(stack.config.reportsDir),
      keyring: new SigningKeyring(stack.db),
      health: { live: () => ({ ok: false, components: {} }), ready: async () => ({ ok: false, components: {} }) },
      scheduler: new TemporalAuditScheduler(
        new Client({ connection: deadConnection }),
        deadConnection,
        stack.config.taskQueue,
        2000,
      ),
      siteSchedules: new TemporalSiteSchedules(new Client({ connection: deadConnection }), stack.config.taskQueue),
      baseUrl: () => 'http://127.0.0.1',
      log: () => undefined,
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // The second audit of a domain would be charged: make sure it is not.
      await stack.db('audits').insert({
        id: 'aud_00000000000000000000000000',
        workspace_id: account.workspaceId,
        account_id: account.accountId,
        mode: 'live',
        domain: site.origin,
        tier: 'pro',
        status: 'completed',
        charged: false,
        created_at: new Date(),
      });
      for (const key of [account.liveKey, account.testKey]) {
        const response = await api('POST', '/v1/audits', { key, baseUrl, body: { domain: site.origin } });
        assert.equal(response.status, 503, response.text);
        assert.equal(response.body.error.code, 'audit_provider_unavailable');
        assert.match(response.body.error.message, /nothing was stored or charged/);
        assert.equal(response.headers.get('x-ratelimit-remaining'), '50');
      }
      assert.equal((await stack.db('audits').where({ workspace_id: account.workspaceId })).length, 1);
      const usage = await api('GET', '/v1/usage', { key: account.liveKey });
      assert.equal(usage.body.audits_used, 0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await deadConnection.close().catch(() => undefined);
    }
  });
});
