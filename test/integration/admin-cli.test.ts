import assert from 'node:assert/strict';
import { admin } from '../support/admin';
import { api, getStack } from '../support/stack';

describe('admin CLI (test contract)', function () {
  this.timeout(60_000);

  it('creates accounts and keys, changes tiers and revokes keys, printing one JSON object with --json', async () => {
    const created = await admin('account', 'create', '--tier', 'pro', '--json');
    assert.equal(created.code, 0, created.stderr);
    const account = JSON.parse(created.stdout);
    assert.match(account.account_id, /^acct_/);
    assert.match(account.workspace_id, /^ws_/);
    assert.equal(account.tier, 'pro');

    const keyOut = await admin('key', 'create', '--workspace', account.workspace_id, '--mode', 'live', '--json');
    const key = JSON.parse(keyOut.stdout);
    assert.match(key.key_id, /^key_/);
    assert.match(key.key, /^svc_live_[0-9A-Za-z]{32}$/);
    const usage = await api('GET', '/v1/usage', { key: key.key });
    assert.equal(usage.status, 200);
    assert.equal(usage.body.tier, 'pro');

    const tier = await admin('account', 'set-tier', '--account', account.account_id, '--tier', 'team', '--json');
    assert.equal(JSON.parse(tier.stdout).tier, 'team');
    assert.equal((await api('GET', '/v1/usage', { key: key.key })).headers.get('x-ratelimit-limit'), '200');

    const listed = await admin('key', 'list', '--workspace', account.workspace_id, '--json');
    assert.ok(!listed.stdout.includes(key.key), 'a listing never shows the secret');
    assert.equal(JSON.parse(listed.stdout).data[0].key_id, key.key_id);

    const revoked = await admin('key', 'revoke', '--key', key.key_id, '--json');
    assert.equal(JSON.parse(revoked.stdout).key_id, key.key_id);
    const { db } = await getStack();
    assert.ok((await db('api_keys').where({ id: key.key_id }).first('revoked_at')).revoked_at);
  });

  it('creates enterprise accounts with a custom quota and prints readable text without --json', async () => {
    const text = await admin('account', 'create', '--tier', 'enterprise', '--quota', '1500');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Created account acct_\S+ \(tier enterprise\) with workspace ws_/);
    const bad = await admin('account', 'create', '--tier', 'platinum', '--json');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /must be one of free, pro, team, enterprise/);
    const missing = await admin('key', 'revoke', '--key', 'key_nope', '--json');
    assert.notEqual(missing.code, 0);
    assert.match(JSON.parse(missing.stdout).error.message, /does not exist/);
  });
});
