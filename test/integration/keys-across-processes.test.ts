import assert from 'node:assert/strict';
import { revokeApiKey } from '../../src/accounts/repository';
import { publishChange } from '../../src/db/change-feed';
import type { Db } from '../../src/db/knex';
import { newLiveAuditId } from '../../src/ids';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';
import { assertEnvelope } from '../support/envelope';
import { startApiProcess } from '../support/processes';

describe('keys across API processes', function () {
  this.timeout(90_000);

  it('a revoked key is refused by every API process once the change feed has brought them the revocation', async () => {
    const stack = await getStack();
    const other = await startApiProcess({
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
    });
    try {
      const account = await newAccount('pro');
      // A second account, whose quota position the other process caches: it shows when that process has
      // heard a change published after the revocation.
      const witness = await newAccount('free');
      // Both instances have the key cached as valid (their caches keep it 10 s without the feed).
      for (const baseUrl of [stack.url, other.url]) {
        assert.equal((await api('GET', '/v1/usage', { key: account.testKey, baseUrl })).status, 200);
      }
      const usageOther = async () =>
        (await api('GET', '/v1/usage', { key: witness.testKey, baseUrl: other.url })).body.audits_remaining;
      assert.equal(await usageOther(), 5);
      const testKeyId = (
        await stack.db('api_keys').where({ workspace_id: account.workspaceId, mode: 'test' }).first('id')
      ).id;
      await revokeApiKey(stack.db, testKeyId, new Date());
      // This process hears its own changes as it commits them: the very next request is refused.
      assertEnvelope(await api('GET', '/v1/usage', { key: account.testKey }), 401, 'invalid_api_key');

      // A later change: Postgres delivers notifications in commit order, so once the other process shows this
      // one, it has heard the revocation too (polled without a deadline: the test's timeout bounds it).
      await chargeOneAudit(stack.db, witness);
      await publishChange(stack.db, { kind: 'account', id: witness.accountId });
      while ((await usageOther()) !== 4) await new Promise((resolve) => setTimeout(resolve, 50));
      // It heard the revocation on the feed before that change: the first request after is refused.
      assertEnvelope(
        await api('GET', '/v1/usage', { key: account.testKey, baseUrl: other.url }),
        401,
        'invalid_api_key',
      );
      // The live key of the same workspace is unaffected.
      assert.equal((await api('GET', '/v1/usage', { key: account.liveKey, baseUrl: other.url })).status, 200);
    } finally {
      await other.stop();
    }
  });

  it('two processes give the same usage answers after a write made elsewhere', async () => {
    const stack = await getStack();
    const other = await startApiProcess({
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    });
    try {
      const account = await newAccount('free');
      const seen = await api('GET', '/v1/usage', { key: account.testKey, baseUrl: other.url });
      assert.equal(seen.body.audits_remaining, 5);
      await chargeOneAudit(stack.db, account, 'aud_PROCESSSEED0000000000000000');
      await publishChange(stack.db, { kind: 'account', id: account.accountId });
      const deadline = Date.now() + 2000;
      let remaining = 5;
      while (remaining !== 4 && Date.now() < deadline) {
        remaining = (await api('GET', '/v1/usage', { key: account.testKey, baseUrl: other.url })).body.audits_remaining;
      }
      assert.equal(remaining, 4);
      assert.equal((await api('GET', '/v1/usage', { key: account.testKey })).body.audits_remaining, 4);
    } finally {
      await other.stop();
    }
  });
});

/** A completed, charged live audit of the account's, written straight to the database (as another process would). */
async function chargeOneAudit(db: Db, account: TestAccount, id = newLiveAuditId()): Promise<void> {
  await db('audits').insert({
    id,
    workspace_id: account.workspaceId,
    account_id: account.accountId,
    mode: 'live',
    domain: 'https://seed.example.com',
    tier: 'free',
    status: 'completed',
    charged: true,
    created_at: new Date(),
  });
}
