import assert from 'node:assert/strict';
import { setKeyAllowlist, revokeKey } from '../../src/accounts/key-service';
import { NotFoundError } from '../../src/accounts/repository';
import type { Usage } from '../../src/accounts/usage';
import { SettableClock } from '../../src/clock';
import type { Config } from '../../src/config';
import type { Db } from '../../src/db/knex';
import { ApiError } from '../../src/errors';
import { createChannel, removeChannel, type NotificationServiceDeps } from '../../src/notifications/service';
import { parseCidrList } from '../../src/outbound/policy';
import { BrandingError } from '../../src/reports/branding';
import { BrandingRefused, clearBranding, setBranding, showBranding } from '../../src/reports/branding-service';
import type { Tier } from '../../src/schemas/audit';
import { listWorkspaceSites } from '../../src/sites/reads';
import { createSite } from '../../src/sites/service';
import { deliveryFilterOf, recoverFailed } from '../../src/webhooks/recovery';
import { UNWATCHED } from '../../src/webhooks/failing-streak';
import { createWebhook, rotateSecret, updateWebhook, type WebhookServiceDeps } from '../../src/webhooks/service';
import { sendTestEvent } from '../../src/webhooks/test-event';

/**
 * Each feature's rules, checked in its service module (issue 26 item 5): the tier gate and the
 * validation refuse before anything is stored, whichever surface (API, dashboard, admin CLI) calls.
 * The database is a stand-in that answers lookups and records writes; where a rule must hold
 * before any query, it refuses every use.
 */
const clock = new SettableClock();
clock.set('2026-11-28T10:00:00.000Z');
const usageOn = (tier: Tier): Usage => ({
  accountId: 'acct_1',
  tier,
  limit: 50,
  used: 0,
  remaining: 50,
  period: { start: new Date('2026-11-01T00:00:00.000Z'), end: new Date('2026-12-01T00:00:00.000Z') },
});
const scope = { workspaceId: 'ws_1', mode: 'live' as const };

/** A database no code may touch: the rule must refuse first. */
const untouched = new Proxy(function () {}, {
  apply() {
    throw new Error('the database was used before the rule refused');
  },
  get() {
    throw new Error('the database was used before the rule refused');
  },
}) as unknown as Db;

/** A database whose lookups answer `first` and whose writes are recorded. */
function lookups(first: unknown): { db: Db; writes: string[] } {
  const writes: string[] = [];
  const chain: object = new Proxy(function () {}, {
    get(_target, prop) {
      if (prop === 'then') return undefined;
      if (prop === 'first') return async () => first;
      if (prop === 'insert' || prop === 'update' || prop === 'del') {
        return () => {
          writes.push(prop);
          return chain;
        };
      }
      return () => chain;
    },
    apply: () => chain,
  });
  return { db: chain as unknown as Db, writes };
}

async function refuses(action: Promise<unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(action, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code);
    if (message) assert.match(err.message, message);
    return true;
  });
}

describe('service rules: keys (src/accounts/key-service.ts)', () => {
  it('sets IP allowlists on team and up only, and never stores a refused one', async () => {
    const pro = lookups({ workspace_id: 'ws_1', mode: 'live', tier: 'pro' });
    await refuses(
      setKeyAllowlist({ db: pro.db, clock }, 'key_1', ['203.0.113.0/24']),
      'tier_required',
      /^IP allowlists require the team tier or higher; this account is on pro$/,
    );
    const team = lookups({ workspace_id: 'ws_1', mode: 'live', tier: 'team' });
    await refuses(
      setKeyAllowlist({ db: team.db, clock }, 'key_1', ['10.0.0.0/8x']),
      'invalid_request',
      /10\.0\.0\.0\/8x/,
    );
    assert.deepEqual([...pro.writes, ...team.writes], []);
    // Clearing is no team feature: a downgraded account can still undo its list.
    const cleared = lookups({ workspace_id: 'ws_1', mode: 'live', tier: 'pro' });
    assert.deepEqual(await setKeyAllowlist({ db: cleared.db, clock }, 'key_1', ['', ' ']), {
      key_id: 'key_1',
      allowed_cidrs: null,
    });
    assert.deepEqual(cleared.writes, ['update']);
  });

  it("treats another workspace's or mode's key as unknown", async () => {
    for (const owner of [
      { ...scope, workspaceId: 'ws_2' },
      { ...scope, mode: 'test' as const },
    ]) {
      const key = lookups({ workspace_id: 'ws_1', mode: 'live', tier: 'team' });
      await assert.rejects(revokeKey({ db: key.db, clock }, 'key_1', owner), NotFoundError);
      await assert.rejects(setKeyAllowlist({ db: key.db, clock }, 'key_1', ['192.0.2.0/24'], owner), NotFoundError);
      assert.deepEqual(key.writes, []);
    }
  });
});

describe('service rules: webhooks (src/webhooks/service.ts, test-event.ts, recovery.ts)', () => {
  const deps = (db: Db): WebhookServiceDeps => ({
    db,
    clock,
    outboundAllow: parseCidrList(''),
    redeliveryWindowMs: 7 * 86_400_000,
    deliveries: { redeliver: async () => 'signalled' },
    watch: UNWATCHED,
    sending: { timeoutMs: 1000, testMockUrl: () => 'http://127.0.0.1:9/mock' },
  });
  const free = { scope, usage: usageOn('free') };
  const pro = { scope, usage: usageOn('pro') };
  const webhook = { id: 'wh_0123456789abcdefghij', status: 'enabled', url: 'https://h.example/x', secret: 'whsec_x' };

  it('gates every action on the pro tier before any lookup', async () => {
    const id = webhook.id;
    await refuses(createWebhook(deps(untouched), free, { url: 'https://h.example/x' }), 'tier_required');
    await refuses(updateWebhook(deps(untouched), free, id, { status: 'enabled' }), 'tier_required');
    await refuses(rotateSecret(deps(untouched), free, id, {}), 'tier_required');
    await refuses(sendTestEvent(deps(untouched), free, id), 'tier_required');
    await refuses(recoverFailed(deps(untouched), free, id, new Date()), 'tier_required', /^webhooks require the pro/);
  });

  it('refuses URLs outside the outbound policy and events outside the catalog, storing nothing', async () => {
    await refuses(
      createWebhook(deps(untouched), pro, { url: 'ftp://h.example/x' }),
      'invalid_request',
      /field url must use http/,
    );
    await refuses(createWebhook(deps(untouched), pro, { url: 'https://h.example/x', events: [] }), 'invalid_request');
    await refuses(
      createWebhook(deps(untouched), pro, { url: 'https://h.example/x', events: ['audit.completed', 'audit.done'] }),
      'invalid_request',
      /field events/,
    );
    const stored = lookups(webhook);
    await refuses(
      updateWebhook(deps(stored.db), pro, webhook.id, { url: 'http://user:pw@h.example/' }),
      'invalid_request',
    );
    assert.deepEqual(stored.writes, []);
  });

  it('rotates with a grace period of 0 to 7 days only', async () => {
    for (const graceSeconds of [-1, 604_801, 1.5, Number.NaN]) {
      const stored = lookups(webhook);
      await refuses(
        rotateSecret(deps(stored.db), pro, webhook.id, { graceSeconds }),
        'invalid_request',
        /grace_seconds/,
      );
      assert.deepEqual(stored.writes, [], String(graceSeconds));
    }
  });

  it('reads delivery filters from text fields: states and events of the catalog, since as UTC', () => {
    assert.deepEqual(deliveryFilterOf({ status: '', event: '', since: '' }), {});
    assert.deepEqual(deliveryFilterOf({ status: 'failed', event: 'webhook.test', since: '2026-11-28T09:30' }), {
      state: 'failed',
      event: 'webhook.test',
      since: new Date('2026-11-28T09:30:00.000Z'),
    });
    assert.deepEqual(deliveryFilterOf({ since: '2026-11-28T11:30:00+02:00' }).since, new Date('2026-11-28T09:30Z'));
    for (const bad of [
      { status: 'lost' },
      { event: 'audit.done' },
      { since: 'yesterday' },
      { since: '2026-13-45T99:00' },
    ])
      assert.throws(
        () => deliveryFilterOf(bad),
        (err: unknown) => err instanceof ApiError && err.code === 'invalid_request',
      );
  });
});

describe('service rules: branding (src/reports/branding-service.ts)', () => {
  const checked: Buffer[] = [];
  const deps = (db: Db, refusal?: string) => ({
    db,
    clock,
    logoChecks: {
      async check(logo: Buffer) {
        checked.push(logo);
        if (refusal) throw new BrandingError('logo', refusal);
      },
    },
  });
  const input = { displayName: 'Acme Digital', primaryColor: '#e4572e' };

  it('gates reading, setting and clearing on the pro tier', async () => {
    const free = { scope, account: usageOn('free') };
    await refuses(showBranding(deps(untouched), free), 'tier_required', /^Report branding require the pro tier/);
    await refuses(setBranding(deps(untouched), free, input), 'tier_required');
    await refuses(clearBranding(deps(untouched), free), 'tier_required');
    // The admin CLI acts with the workspace's tier alone.
    await refuses(setBranding(deps(untouched), { scope, account: { tier: 'free' } }, input), 'tier_required');
  });

  it('refuses each field by name, and a logo pdfkit cannot embed, before anything is stored', async () => {
    const pro = { scope, account: usageOn('pro') };
    await assert.rejects(setBranding(deps(untouched), pro, { ...input, primaryColor: 'orange' }), (err: unknown) => {
      assert.ok(err instanceof BrandingRefused);
      assert.equal(err.code, 'invalid_request');
      assert.equal(err.field, 'primaryColor');
      assert.equal(err.message, 'field primary_color must be a colour as #rrggbb, got "orange"');
      return true;
    });
    await refuses(setBranding(deps(untouched), pro, { ...input, displayName: ' ' }), 'invalid_request', /display_name/);
    await refuses(
      setBranding(deps(untouched), pro, { ...input, logo: Buffer.from('GIF89a') }),
      'invalid_request',
      /^field logo must be a PNG or JPEG image$/,
    );
    assert.equal(checked.length, 0, 'a logo refused by its header is never decoded');
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
    await refuses(
      setBranding(deps(untouched, 'could not be read as an image'), pro, { ...input, logo: png }),
      'invalid_request',
      /^field logo could not be read as an image$/,
    );
    assert.equal(checked.length, 1);
  });
});

describe('service rules: sites (src/sites/service.ts, reads.ts)', () => {
  it('gates monitoring and listing on the pro tier before any lookup', async () => {
    const caller = { workspaceId: 'ws_1', accountId: 'acct_1', mode: 'live' as const, usage: usageOn('free') };
    const deps = { db: untouched, clock, config: {} as Config, schedules: {} as never };
    await refuses(
      createSite(deps, caller, { domain: 'https://example.com', schedule: 'weekly' } as never),
      'tier_required',
      /^Monitored sites require the pro tier/,
    );
    await refuses(listWorkspaceSites(untouched, caller, { limit: 10 }), 'tier_required');
  });
});

describe('service rules: notification channels (src/notifications/service.ts)', () => {
  // hooks.example.org is public; nothing else resolves.
  const deps = (db: Db): NotificationServiceDeps => ({
    db,
    clock,
    outboundAllow: parseCidrList(''),
    lookup: async (host) => {
      if (host === 'hooks.example.org') return [{ address: '93.184.215.14', family: 4 }];
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    },
  });
  const create = (type: 'email' | 'slack' | 'teams', target: string) =>
    createChannel(deps(untouched), { scope }, { type, target, events: ['audit.failed'] });

  it('refuses a target that does not fit its type before the database is used', async () => {
    await refuses(create('email', 'Ops <ops@example.com>'), 'invalid_request', /e-mail address for type email/);
    await refuses(create('slack', 'http://hooks.example.org/x'), 'invalid_request', /must be an https:\/\/ URL/);
    await refuses(create('teams', 'ops@example.com'), 'invalid_request', /absolute http/);
    await refuses(create('teams', 'https://nowhere.example.org/x'), 'invalid_request', /cannot receive webhooks/);
  });

  it('treats ids of another shape as unknown without a query', async () => {
    await refuses(removeChannel(deps(untouched), { scope }, 'wh_1'), 'notification_channel_not_found');
  });
});
