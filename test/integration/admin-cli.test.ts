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

  it('creates, lists and deletes notification channels per workspace and mode through the service; bad input stores nothing', async function () {
    this.timeout(180_000);
    const account = JSON.parse((await admin('account', 'create', '--tier', 'free', '--json')).stdout);
    const workspace = ['--workspace', account.workspace_id];
    const create = (...args: string[]) => admin('channel', 'create', ...workspace, ...args, '--json');
    const email = await create(
      '--mode',
      'live',
      '--type',
      'email',
      '--target',
      'Ops@Example.COM',
      '--events',
      'audit.failed,site.regressed',
    );
    assert.equal(email.code, 0, email.stderr + email.stdout);
    const created = JSON.parse(email.stdout);
    assert.match(created.channel_id, /^nch_/);
    assert.deepEqual(
      [created.type, created.target, created.events],
      ['email', 'Ops@example.com', ['audit.failed', 'site.regressed']],
    );
    const slack = await create(
      '--mode',
      'test',
      '--type',
      'slack',
      '--target',
      'https://93.184.215.14/services/T0/B0/x',
      '--events',
      'webhook.disabled',
    );
    assert.equal(slack.code, 0, slack.stderr + slack.stdout);
    const slackId = JSON.parse(slack.stdout).channel_id;
    const liveKey = JSON.parse((await admin('key', 'create', ...workspace, '--mode', 'live', '--json')).stdout).key;
    const viaApi = await api('GET', '/v1/notification-channels', { key: liveKey });
    assert.deepEqual(viaApi.body.data, [created]);
    const listed = JSON.parse((await admin('channel', 'list', ...workspace, '--json')).stdout);
    assert.deepEqual(
      [
        listed.live.map((c: { channel_id: string }) => c.channel_id),
        listed.test.map((c: { channel_id: string }) => c.channel_id),
      ],
      [[created.channel_id], [slackId]],
    );
    const text = await admin('channels', 'list', ...workspace, '--mode', 'test');
    assert.match(
      text.stdout,
      new RegExp(`^${slackId}  test  slack  https://93\\.184\\.215\\.14/services/T0/B0/x  webhook\\.disabled$`, 'm'),
    );
    assert.doesNotMatch(text.stdout, new RegExp(created.channel_id));

    const { db } = await getStack();
    const stored = async () =>
      (await db('notification_channels').where({ workspace_id: account.workspace_id }).whereNull('deleted_at')).length;
    const valid = { '--mode': 'live', '--type': 'email', '--target': 'ops@example.com', '--events': 'audit.failed' };
    const argsOf = (changes: Record<string, string>) => Object.entries({ ...valid, ...changes }).flat();
    const usage: Array<[Record<string, string>, RegExp]> = [
      [{ '--type': 'discord' }, /--type.*must be one of email, slack, teams/],
      [{ '--events': 'audit.completed' }, /--events.*must be events from site\.regressed/],
      [{ '--events': 'audit.failed,audit.failed' }, /must name each event once/],
    ];
    for (const [changes, message] of usage) {
      const refused = await create(...argsOf(changes));
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, message);
    }
    // The service's refusals, in the API's words and codes; a target the API's schema refuses is refused first.
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ '--target': 'ops@example.com, boss@example.com' }, /e-mail address for type email/],
      [{ '--type': 'slack', '--target': 'https://10.0.0.1/hook' }, /^field target cannot receive webhooks/],
      [{ '--type': 'slack', '--target': `https://93.184.215.14/${'x'.repeat(2048)}` }, /--target must be at most 2048/],
    ];
    for (const [changes, message] of refusals) {
      const refused = await create(...argsOf(changes));
      assert.notEqual(refused.code, 0);
      // One JSON object on stdout: the refused host's addresses go to stderr.
      assert.equal(refused.stdout.trim().split('\n').length, 1, refused.stdout);
      assert.equal(JSON.parse(refused.stdout).error.code, 'invalid_request');
      assert.match(JSON.parse(refused.stdout).error.message, message);
    }
    const nowhere = await admin('channel', 'create', '--workspace', 'ws_nope', ...argsOf({}), '--json');
    assert.equal(JSON.parse(nowhere.stdout).error.code, 'not_found');
    assert.equal(await stored(), 2);

    // Another mode's channel is not found, and stays; its own mode deletes it.
    const wrongMode = await admin(
      'channel',
      'delete',
      ...workspace,
      '--mode',
      'test',
      '--channel',
      created.channel_id,
      '--json',
    );
    assert.equal(JSON.parse(wrongMode.stdout).error.code, 'notification_channel_not_found');
    assert.equal(await stored(), 2);
    const deleted = await admin(
      'channel',
      'delete',
      ...workspace,
      '--mode',
      'live',
      '--channel',
      created.channel_id,
      '--json',
    );
    assert.equal(deleted.code, 0, deleted.stderr + deleted.stdout);
    assert.deepEqual((await api('GET', '/v1/notification-channels', { key: liveKey })).body.data, []);
  });
});
