import assert from 'node:assert/strict';
import type { RunningApi } from '../../processes/api-service';
import { assertEnvelope } from '../support/envelope';
import { uniqueClientAddress } from '../support/dashboard-client';
import { api, getStack, newAccount, startExtraApi, stopExtraApi } from '../support/stack';

const LIMIT = 60;

/**
 * The failed-authentication limit under real concurrency, on an API of its own that trusts
 * X-Forwarded-For (so each test has client addresses of its own) with the shipped limit of 60.
 */
describe('API: failed authentications under concurrency', function () {
  this.timeout(60_000);
  let instance: RunningApi;
  before(async () => {
    const { config } = await getStack();
    instance = await startExtraApi({ config: { ...config, trustProxy: true, authFailureLimit: LIMIT } });
  });
  after(() => stopExtraApi(instance));

  const usage = (key: string, address: string) =>
    api('GET', '/v1/usage', { key, baseUrl: instance.url, headers: { 'X-Forwarded-For': address } });

  it('looks up exactly 60 of 100 concurrent bad keys from one address and answers the rest 429', async () => {
    const address = uniqueClientAddress();
    const bad = Array.from({ length: 100 }, (_, i) => `svc_test_${String(i).padStart(8, '0')}${'Q'.repeat(24)}`);
    const { db } = await getStack();
    const lookups = await countKeyLookups();
    // A slow database widens the window between counting and looking up: every lookup waits on this lock
    // until all 100 requests are in, as they would behind a busy Postgres.
    const slow = await db.transaction();
    try {
      await slow.raw('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      const pending = Promise.all(bad.map((key) => usage(key, address)));
      await settled(() => lookups.count());
      await slow.commit();
      const answers = await pending;
      assert.equal(lookups.count(), LIMIT, 'key lookups');
      const refused = answers.filter((a) => a.status === 429);
      assert.equal(answers.filter((a) => a.status === 401).length, LIMIT);
      assert.equal(refused.length, 100 - LIMIT);
      for (const answer of refused) {
        assertEnvelope(answer, 429, 'too_many_failed_authentications', /more than 60 failed authentications/);
        assert.ok(Number(answer.headers.get('retry-after')) >= 1);
      }
      for (const answer of answers.filter((a) => a.status === 401)) assertEnvelope(answer, 401, 'invalid_api_key');
    } finally {
      if (!slow.isCompleted()) await slow.rollback();
      lookups.stop();
    }
  });

  it('keeps a valid key working from a throttled address, while unknown keys stay unevaluated', async () => {
    const account = await newAccount('pro');
    const neighbour = await newAccount('pro');
    const address = uniqueClientAddress();
    assert.equal((await usage(account.testKey, address)).status, 200, 'in use before the flood');

    const bad = Array.from({ length: LIMIT + 20 }, (_, i) => `svc_live_${String(i).padStart(8, '0')}${'R'.repeat(24)}`);
    await Promise.all(bad.map((key) => usage(key, address)));
    assertEnvelope(await usage(`svc_test_${'Z'.repeat(32)}`, address), 429, 'too_many_failed_authentications');

    const lookups = await countKeyLookups();
    try {
      // Past the short identity cache (as after 10 s, or a key change anywhere): looked up again, still served.
      instance.authenticator.forgetAll();
      const served = await Promise.all(Array.from({ length: 5 }, () => usage(account.testKey, address)));
      assert.deepEqual(
        served.map((a) => a.status),
        [200, 200, 200, 200, 200],
      );
      assert.ok(lookups.count() >= 1, 'the valid key was evaluated, not answered from the cache');
      const before = lookups.count();
      assertEnvelope(await usage(`svc_test_${'Y'.repeat(32)}`, address), 429, 'too_many_failed_authentications');
      assert.equal(lookups.count(), before, 'an unknown key from the throttled address is not looked up');
      // A key this instance never saw valid waits for the window like any guess (that is what bounds guessing) …
      assertEnvelope(await usage(neighbour.testKey, address), 429, 'too_many_failed_authentications');
      // … and works at once from any other address, after which it is known here too.
      assert.equal((await usage(neighbour.testKey, uniqueClientAddress())).status, 200);
      assert.equal((await usage(neighbour.testKey, address)).status, 200);
    } finally {
      lookups.stop();
    }
  });

  it('does not let a valid key reset the count of failures', async () => {
    const account = await newAccount('pro');
    const address = uniqueClientAddress();
    for (let round = 0; round < LIMIT; round++) {
      assert.equal((await usage(account.testKey, address)).status, 200);
      assertEnvelope(await usage(`svc_test_${String(round).padStart(32, 'W')}`, address), 401, 'invalid_api_key');
    }
    assertEnvelope(await usage(`svc_test_${'V'.repeat(32)}`, address), 429, 'too_many_failed_authentications');
    assert.equal((await usage(account.testKey, address)).status, 200);
  });
});

/** Resolves once the value has not changed for 300 ms (at most 10 s). */
async function settled(value: () => number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = -1;
  while (Date.now() < deadline) {
    const now = value();
    if (now === last) return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Counts the key lookups (the api_keys query by hash) on the shared connection pool. */
async function countKeyLookups() {
  const { db } = await getStack();
  let count = 0;
  const onQuery = (query: { sql: string }) => {
    if (query.sql.includes('secret_hash')) count++;
  };
  db.on('query', onQuery);
  return { count: () => count, stop: () => db.removeListener('query', onQuery) };
}
