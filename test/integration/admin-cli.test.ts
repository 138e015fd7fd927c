import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { tinyPng } from '../support/pdf';
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

  it('key allow-ips follows the key service: team and up, each entry parsed, clearing always allowed', async () => {
    const pro = JSON.parse((await admin('account', 'create', '--tier', 'pro', '--json')).stdout);
    const key = JSON.parse(
      (await admin('key', 'create', '--workspace', pro.workspace_id, '--mode', 'live', '--json')).stdout,
    );
    const refused = await admin('key', 'allow-ips', '--key', key.key_id, '--cidrs', '203.0.113.0/24', '--json');
    assert.notEqual(refused.code, 0);
    assert.deepEqual(JSON.parse(refused.stdout).error, {
      code: 'tier_required',
      message: 'IP allowlists require the team tier or higher; this account is on pro',
    });
    assert.equal((await admin('key', 'allow-ips', '--key', key.key_id, '--cidrs', '', '--json')).code, 0);
    await admin('account', 'set-tier', '--account', pro.account_id, '--tier', 'team', '--json');
    const bad = await admin('key', 'allow-ips', '--key', key.key_id, '--cidrs', '10.0.0.0/8x', '--json');
    assert.equal(JSON.parse(bad.stdout).error.code, 'invalid_request');
    assert.match(JSON.parse(bad.stdout).error.message, /10\.0\.0\.0\/8x/);
    const set = await admin(
      'key',
      'allow-ips',
      '--key',
      key.key_id,
      '--cidrs',
      '203.0.113.0/24, 2001:db8::/32',
      '--json',
    );
    assert.deepEqual(JSON.parse(set.stdout).allowed_cidrs, ['203.0.113.0/24', '2001:db8::/32']);
  });

  it('sets, shows and clears report branding per workspace (both modes unless --mode); free accounts get tier_required', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'branding-'));
    try {
      const logo = path.join(dir, 'logo.png');
      await writeFile(logo, tinyPng(90, 30));
      const account = JSON.parse((await admin('account', 'create', '--tier', 'pro', '--json')).stdout);
      const set = await admin(
        'branding',
        'set',
        '--workspace',
        account.workspace_id,
        '--name',
        'Acme Digital',
        '--color',
        '#E4572E',
        '--logo',
        logo,
        '--footer',
        'Prepared for you',
        '--contact',
        'hello@acme.example',
        '--json',
      );
      assert.equal(set.code, 0, set.stderr + set.stdout);
      const saved = JSON.parse(set.stdout);
      for (const mode of ['test', 'live']) {
        assert.equal(saved[mode].display_name, 'Acme Digital');
        assert.equal(saved[mode].primary_color, '#e4572e');
        assert.equal(saved[mode].logo.content_type, 'image/png');
      }
      const liveKey = JSON.parse(
        (await admin('key', 'create', '--workspace', account.workspace_id, '--mode', 'live', '--json')).stdout,
      ).key;
      const viaApi = await api('GET', '/v1/branding', { key: liveKey });
      assert.deepEqual(viaApi.body, saved.live);

      const cleared = await admin('branding', 'clear', '--workspace', account.workspace_id, '--mode', 'test', '--json');
      assert.deepEqual(JSON.parse(cleared.stdout).cleared, ['test']);
      const shown = JSON.parse((await admin('branding', 'show', '--workspace', account.workspace_id, '--json')).stdout);
      assert.equal(shown.test.display_name, null);
      assert.equal(shown.live.display_name, 'Acme Digital');

      const bad = await admin(
        'branding',
        'set',
        '--workspace',
        account.workspace_id,
        '--name',
        'Acme',
        '--color',
        'orange',
        '--json',
      );
      assert.notEqual(bad.code, 0);
      // The API's words: one validation (src/reports/branding-service.ts) for every surface.
      assert.equal(JSON.parse(bad.stdout).error.code, 'invalid_request');
      assert.match(JSON.parse(bad.stdout).error.message, /^field primary_color must be a colour as #rrggbb/);

      const free = JSON.parse((await admin('account', 'create', '--tier', 'free', '--json')).stdout);
      const refused = await admin(
        'branding',
        'set',
        '--workspace',
        free.workspace_id,
        '--name',
        'Acme',
        '--color',
        '#000000',
        '--json',
      );
      assert.notEqual(refused.code, 0);
      assert.equal(JSON.parse(refused.stdout).error.code, 'tier_required');
      const { db } = await getStack();
      assert.equal((await db('workspace_branding').where({ workspace_id: free.workspace_id })).length, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
