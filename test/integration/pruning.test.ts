import assert from 'node:assert/strict';
import { PRUNE_SCHEDULE_ID } from '../../temporal/schedules';
import { api, getStack, newAccount, seedLiveAudits } from '../support/stack';

describe('free-tier pruning (Temporal Schedule)', function () {
  this.timeout(60_000);

  it('is a schedule operators can see, and deletes free audits older than 24 months, then audit_not_found', async () => {
    const { db, service } = await getStack();
    const free = await newAccount('free');
    const pro = await newAccount('pro');
    const old = new Date();
    old.setUTCMonth(old.getUTCMonth() - 25);
    const recent = new Date();
    recent.setUTCMonth(recent.getUTCMonth() - 23);
    await seedLiveAudits(free, 1, { createdAt: old, domain: 'https://old.example.com' });
    await seedLiveAudits(free, 1, { createdAt: recent, domain: 'https://recent.example.com' });
    await seedLiveAudits(pro, 1, { createdAt: old, domain: 'https://old.example.com' });
    const ids = async (accountId: string) => (await db('audits').where({ account_id: accountId }).orderBy('created_at')).map((r) => r.id as string);
    const [freeOld, freeRecent] = await ids(free.accountId);
    const [proOld] = await ids(pro.accountId);
    // Served (and cached) before the prune.
    assert.equal((await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey })).status, 200);

    const schedule = service.temporal.client.schedule.getHandle(PRUNE_SCHEDULE_ID);
    const description = await schedule.describe();
    assert.equal(description.action.type, 'startWorkflow');
    const before = description.info.recentActions.length;
    await schedule.trigger();
    const deadline = Date.now() + 30_000;
    while ((await db('audits').where({ id: freeOld }).first('id')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(await ids(free.accountId), [freeRecent]);
    assert.deepEqual(await ids(pro.accountId), [proOld]);
    // The API drops its cached copy on the prune's NOTIFY (milliseconds): allow up to a second.
    let gone = await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey });
    for (const until = Date.now() + 1000; gone.status !== 404 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      gone = await api('GET', `/v1/audits/${freeOld}`, { key: free.liveKey });
    }
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'audit_not_found');
    assert.ok((await schedule.describe()).info.recentActions.length > before);
  });
});
