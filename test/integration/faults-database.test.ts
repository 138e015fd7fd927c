import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pg from 'pg';
import { crawlWorkflowId } from '../../workflows/contracts';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';
import { startReceiver, until } from '../support/receiver';
import { serveSite, serveSlowSite } from '../support/sites';

const HOME =
  '<!doctype html><html lang="en"><head><title>Database outage fixture site</title></head><body><h1>Hi</h1></body></html>';

/**
 * A real database outage for the service: its database stops accepting connections and every
 * backend the service holds is terminated, as when Postgres restarts or fails over. `end()` lets
 * connections in again.
 */
async function refuseDatabase(databaseUrl: string): Promise<{ end(): Promise<void> }> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const adminUrl = new URL(databaseUrl);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString() });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  let ended = false;
  return {
    async end() {
      if (ended) return;
      ended = true;
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pages of the audit's crawl a step has taken: claimed, or already fetched and committed. */
async function pagesTakenBySteps(db: Knex, auditId: string): Promise<number> {
  const row = await db('crawl_frontier as f')
    .join('crawl_runs as r', 'r.crawl_id', 'f.crawl_id')
    .where('r.audit_id', auditId)
    .whereIn('f.state', ['claimed', 'rendering', 'crawled', 'unreachable'])
    .whereLike('f.url', '%/p%')
    .count<{ count: string }[]>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

describe('a database outage', function () {
  this.timeout(90_000);

  it('while a delivery is being attempted: the delivery is delivered once, by its one delivery id, and logged delivered', async () => {
    const stack = await getStack();
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: HOME } });
    let outage: { end(): Promise<void> } | null = null;
    // The receiver takes the database down while the POST is in flight, then acknowledges it: the
    // attempt has to store its outcome while Postgres refuses connections.
    const receiver = await startReceiver(async (_request, index) => {
      if (index === 0) outage = await refuseDatabase(stack.config.databaseUrl!);
      return 200;
    });
    try {
      const account = await newAccount('pro');
      const webhook = await api('POST', '/v1/webhooks', {
        key: account.liveKey,
        body: { url: receiver.url, events: ['audit.completed'] },
      });
      assert.equal(webhook.status, 201, webhook.text);
      const trigger = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      assert.equal(trigger.status, 202, trigger.text);
      await until(() => outage, 30_000, 'the delivery attempt');
      // Longer than the old three quick activity attempts took to give up.
      await sleep(6000);
      await outage!.end();

      const deliveryId = String(receiver.received[0].headers['x-service-delivery']);
      const row = await until(
        async () => {
          const found = await stack.db('deliveries').where({ id: deliveryId }).first('state', 'attempts');
          return found?.state === 'delivered' && found;
        },
        30_000,
        'the delivery to be logged delivered',
      );
      assert.equal(row.attempts, 1);
      const attempts = await stack.db('delivery_attempts').where({ delivery_id: deliveryId });
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].status_code, 200);
      // Nothing was sent again: one POST, one delivery id.
      await sleep(1500);
      assert.equal(receiver.received.length, 1);
      assert.deepEqual([...new Set(receiver.received.map((r) => r.headers['x-service-delivery']))], [deliveryId]);
      // Stored by the audit workflow's activity once Postgres answered; the audit's run never failed.
      const audit = await stack.service.temporal.client.workflow.getHandle(trigger.body.audit_id).describe();
      assert.equal(audit.status.name, 'COMPLETED');
    } finally {
      await (outage as { end(): Promise<void> } | null)?.end();
      await receiver.close();
      await site.close();
    }
  });

  it('during a live crawl: the audit completes in its one attempt, crawled once, and no audit.retried is sent', async () => {
    const stack = await getStack();
    // 12 pages of 400 ms each: the outage begins while the crawl is under way and outlasts it.
    const slowSite = await serveSlowSite(400);
    const { origin, requests } = slowSite;
    const receiver = await startReceiver(() => 200);
    let outage: { end(): Promise<void> } | null = null;
    try {
      const account = await newAccount('pro');
      const webhook = await api('POST', '/v1/webhooks', { key: account.liveKey, body: { url: receiver.url } });
      assert.equal(webhook.status, 201, webhook.text);
      const trigger = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: origin } });
      assert.equal(trigger.status, 202, trigger.text);
      const auditId: string = trigger.body.audit_id;
      // The outage begins once steps have taken all 12 pages: a step claims its pages from Postgres
      // before it fetches them, so a page not yet claimed would wait for the outage's end.
      await until(
        async () =>
          requests.filter((r) => r.startsWith('/p')).length >= 2 && (await pagesTakenBySteps(stack.db, auditId)) === 12,
        30_000,
        'the crawl to be under way, every page claimed by a step',
      );
      outage = await refuseDatabase(stack.config.databaseUrl!);
      const crawledDuringOutage = () => requests.filter((r) => r.startsWith('/p')).length;
      await until(() => crawledDuringOutage() >= 12, 30_000, 'the crawl to finish during the outage');
      await sleep(5000);
      await outage.end();

      const done = await waitForAudit(account.liveKey, auditId, 60_000);
      assert.equal(done.body.status, 'completed', done.text);
      assert.equal(done.body.crawl.pages_crawled, 13);
      const row = await stack.db('audits').where({ id: auditId }).first('attempts');
      assert.equal(row.attempts, 1, 'an outage is not an audit attempt');
      assert.equal(
        requests.filter((r) => r === '/robots.txt').length,
        1,
        'the crawled result was kept, not crawled again',
      );
      await until(
        () => receiver.received.some((r) => r.headers['x-service-event'] === 'audit.completed'),
        30_000,
        'audit.completed',
      );
      const events = receiver.received.map((r) => r.headers['x-service-event']);
      assert.deepEqual(events, ['audit.completed']);
      // Every activity of the audit and of its crawl started once: the outage was waited out inside
      // them (no activity retry), so no page was fetched twice either.
      const { client } = stack.service.temporal;
      const generation = (await stack.db('audits').where({ id: auditId }).first('run_generation')).run_generation;
      for (const id of [auditId, crawlWorkflowId(auditId, generation, 1)]) {
        const history = await client.workflow.getHandle(id).fetchHistory();
        const started = (history.events ?? [])
          .filter((e) => e.activityTaskStartedEventAttributes)
          .map((e) => e.activityTaskStartedEventAttributes!.attempt);
        assert.ok(started.length > 0 && started.every((attempt) => attempt === 1), `${id}: attempts ${started}`);
      }
      const pages = requests.filter((r) => r.startsWith('/p'));
      assert.equal(new Set(pages).size, pages.length, 'no page fetched twice');
    } finally {
      await (outage as { end(): Promise<void> } | null)?.end();
      await receiver.close();
      await slowSite.close();
    }
  });
});
