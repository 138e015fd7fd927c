import assert from 'node:assert/strict';
import { revokeApiKey } from '../../src/accounts/repository';
import { publishChange } from '../../src/db/change-feed';
import { api, getStack, newAccount } from '../support/stack';
import { startApiProcess } from '../support/processes';

describe('keys across API processes', function () {
  this.timeout(90_000);

  it('a revoked key is refused by every API process within 30 s', async () => {
    const stack = await getStack();
    const other = await startApiProcess({
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
    });
    try {
      const account = await newAccount('pro');
      // Both instances have the key cached as valid.
      for (const baseUrl of [stack.url, other.url]) {
        assert.equal((await api('GET', '/v1/usage', { key: account.testKey, baseUrl })).status, 200);
      }
      const testKeyId = (
        await stack.db('api_keys').where({ workspace_id: account.workspaceId, mode: 'test' }).first('id')
      ).id;
      const revokedAt = Date.now();
      await revokeApiKey(stack.db, testKeyId, new Date());
      for (const baseUrl of [stack.url, other.url]) {
        for (;;) {
          const response = await api('GET', '/v1/usage', { key: account.testKey, baseUrl });
          if (response.status === 401) {
            assert.equal(response.body.error.code, 'invalid_api_key');
            break;
          }
          assert.ok(Date.now() - revokedAt < 30_000, `still accepted by ${baseUrl} after 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      assert.ok(Date.now() - revokedAt < 30_000);
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
      await stack.db('audits').insert({
        id: 'aud_PROCESSSEED0000000000000000',
        workspace_id: account.workspaceId,
        account_id: account.accountId,
        mode: 'live',
        domain: 'https://seed.example.com',
        tier: 'free',
        status: 'completed',
        charged: true,
        created_at: new Date(),
      });
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
