import assert from 'node:assert/strict';
import { Client, ScheduleNotFoundError } from '@temporalio/client';
import { ClosableConnection } from '../../temporal/closable-connection';
import { siteScheduleId } from '../../workflows/contracts';
import { admin } from '../support/admin';
import { assertEnvelope } from '../support/envelope';
import { until } from '../support/receiver';
import { seedCompletedAudit } from '../support/site-audits';
import { api, getStack, newAccount } from '../support/stack';

async function scheduleState(siteId: string): Promise<{ paused: boolean } | null> {
  const stack = await getStack();
  const connection = ClosableConnection.open({ address: stack.temporalAddress });
  try {
    const description = await new Client({ connection }).schedule.getHandle(siteScheduleId(siteId)).describe();
    return { paused: description.state.paused };
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return null;
    throw err;
  } finally {
    await connection.close();
  }
}

describe('sites API', function () {
  this.timeout(60_000);

  it('creates a site as a Temporal Schedule, lists, reads, changes and deletes it', async () => {
    const account = await newAccount('pro');
    const created = await api('POST', '/v1/sites', {
      key: account.testKey,
      body: { domain: 'https://Example.COM/', schedule: 'weekly' },
    });
    assert.equal(created.status, 201, created.text);
    const site = created.body;
    assert.match(site.site_id, /^site_[0-9a-z]{26}$/);
    assert.equal(site.domain, 'https://example.com');
    assert.equal(site.schedule, 'weekly');
    assert.equal(site.paused, false);
    assert.equal(site.last_audit_id, null);
    const next = Date.parse(site.next_run_at);
    assert.ok(next > Date.now() && next <= Date.now() + 7 * 86_400_000, site.next_run_at);
    assert.deepEqual(await scheduleState(site.site_id), { paused: false });

    const duplicate = await api('POST', '/v1/sites', {
      key: account.testKey,
      body: { domain: 'https://example.com', schedule: 'daily' },
    });
    assertEnvelope(duplicate, 409, 'site_already_exists', new RegExp(site.site_id));
    // Live keys see live sites only.
    const live = await api('GET', '/v1/sites', { key: account.liveKey });
    assert.deepEqual(live.body.data, []);

    const listed = await api('GET', '/v1/sites', { key: account.testKey });
    assert.deepEqual(
      listed.body.data.map((s: { site_id: string }) => s.site_id),
      [site.site_id],
    );
    const paused = await api('PATCH', `/v1/sites/${site.site_id}`, {
      key: account.testKey,
      body: { paused: true, schedule: 'monthly' },
    });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.body.paused, true);
    assert.equal(paused.body.schedule, 'monthly');
    assert.equal(paused.body.next_run_at, null);
    assert.deepEqual(await scheduleState(site.site_id), { paused: true });
    const read = await api('GET', `/v1/sites/${site.site_id}`, { key: account.testKey });
    assert.equal(read.body.schedule, 'monthly');

    const deleted = await api('DELETE', `/v1/sites/${site.site_id}`, { key: account.testKey });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(await scheduleState(site.site_id), null);
    assertEnvelope(await api('GET', `/v1/sites/${site.site_id}`, { key: account.testKey }), 404, 'site_not_found');
  });

  it('refuses bad input with the error envelope and stores nothing', async () => {
    const account = await newAccount('pro');
    const { db } = await getStack();
    const bad: Array<[unknown, string]> = [
      [{ domain: 'https://example.com', schedule: 'hourly' }, 'invalid_request'],
      [{ domain: 'example.com', schedule: 'daily' }, 'invalid_domain'],
      [{ schedule: 'daily' }, 'invalid_request'],
      [{ domain: 'https://example.com', schedule: 'daily', tier: 'team' }, 'tier_required'],
    ];
    for (const [body, code] of bad) {
      const response = await api('POST', '/v1/sites', { key: account.testKey, body });
      assert.equal(response.body?.error?.code, code, `${JSON.stringify(body)}: ${response.text}`);
    }
    assert.equal((await db('sites').where({ account_id: account.accountId })).length, 0);
    assertEnvelope(await api('GET', '/v1/sites/site_nothere', { key: account.testKey }), 404, 'site_not_found');
    assertEnvelope(await api('GET', '/v1/sites/%00garbage', { key: account.testKey }), 404, 'site_not_found');
    const created = await api('POST', '/v1/sites', {
      key: account.testKey,
      body: { domain: 'https://example.org', schedule: 'daily' },
    });
    const patch = await api('PATCH', `/v1/sites/${created.body.site_id}`, { key: account.testKey, body: {} });
    assertEnvelope(patch, 400, 'invalid_request');
    const cursor = await api('GET', '/v1/sites?cursor=nonsense', { key: account.testKey });
    assertEnvelope(cursor, 400, 'invalid_request');
  });

  it('holds each tier to its number of sites: free none, pro 10 per environment', async () => {
    const free = await newAccount('free');
    const refused = await api('POST', '/v1/sites', {
      key: free.testKey,
      body: { domain: 'https://example.com', schedule: 'daily' },
    });
    assertEnvelope(refused, 403, 'tier_required', /^Monitored sites require the pro tier/);

    const pro = await newAccount('pro');
    for (let i = 0; i < 10; i++) {
      const response = await api('POST', '/v1/sites', {
        key: pro.testKey,
        body: { domain: `https://site-${i}.example.com`, schedule: 'daily' },
      });
      assert.equal(response.status, 201, response.text);
    }
    const eleventh = await api('POST', '/v1/sites', {
      key: pro.testKey,
      body: { domain: 'https://site-10.example.com', schedule: 'daily' },
    });
    assertEnvelope(eleventh, 403, 'site_limit_reached', /at most 10 test sites/);
    const page = await api('GET', '/v1/sites?limit=4', { key: pro.testKey });
    assert.equal(page.body.data.length, 4);
    assert.equal(page.body.has_more, true);
    const rest = await api('GET', `/v1/sites?limit=20&cursor=${page.body.next_cursor}`, { key: pro.testKey });
    assert.equal(rest.body.data.length, 6);
    assert.equal(rest.body.next_cursor, null);
  });

  it('pauses sites over the limit on a downgrade (oldest kept) and resumes them on an upgrade', async () => {
    const account = await newAccount('team');
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const response = await api('POST', '/v1/sites', {
        key: account.testKey,
        body: { domain: `https://down-${i}.example.com`, schedule: 'daily' },
      });
      assert.equal(response.status, 201, response.text);
      ids.push(response.body.site_id);
    }
    const down = await admin('account', 'set-tier', '--account', account.accountId, '--tier', 'pro', '--json');
    assert.equal(down.code, 0, down.stderr);
    assert.deepEqual(JSON.parse(down.stdout).sites_paused, ids.slice(10));
    const site = (id: string) => api('GET', `/v1/sites/${id}`, { key: account.testKey }).then((r) => r.body);
    assert.equal((await site(ids[11])).paused_reason, 'tier_limit');
    assert.equal((await site(ids[9])).paused, false);
    // The admin CLI has no Temporal client: the API's reconciler pauses the schedules.
    await until(async () => (await scheduleState(ids[11]))?.paused === true, 20_000, 'schedule paused');
    assert.deepEqual(await scheduleState(ids[9]), { paused: false });
    const resume = await api('PATCH', `/v1/sites/${ids[11]}`, { key: account.testKey, body: { paused: false } });
    assertEnvelope(resume, 403, 'site_limit_reached');

    const up = await admin('account', 'set-tier', '--account', account.accountId, '--tier', 'team', '--json');
    assert.deepEqual(JSON.parse(up.stdout).sites_resumed, ids.slice(10));
    await until(async () => (await scheduleState(ids[11]))?.paused === false, 20_000, 'schedule resumed');
  });

  it('triages a fingerprint the site has reported, by key, and refuses unknown ones', async () => {
    const account = await newAccount('pro');
    const created = await api('POST', '/v1/sites', {
      key: account.liveKey,
      body: { domain: 'http://127.0.0.1', schedule: 'daily' },
    });
    assert.equal(created.status, 201, created.text);
    const siteId = created.body.site_id;
    await seedCompletedAudit(account, { domain: 'http://127.0.0.1', mode: 'live', fingerprints: ['fp_abc123'] });
    const path = (fp: string) => `/v1/sites/${siteId}/findings/${fp}`;
    const set = await api('PUT', path('fp_abc123'), {
      key: account.liveKey,
      body: { status: 'accepted', note: 'third-party widget' },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.status, 'accepted');
    assert.equal(set.body.note, 'third-party widget');
    assert.equal(set.body.set_by, `key:${account.liveKeyId}`);
    const again = await api('PUT', path('fp_abc123'), { key: account.liveKey, body: { status: 'open' } });
    assert.equal(again.body.note, null);
    const { db } = await getStack();
    const rows = await db('site_finding_triage').where({ site_id: siteId });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, 'open');

    assertEnvelope(
      await api('PUT', path('fp_zzz999'), { key: account.liveKey, body: { status: 'ignored' } }),
      404,
      'finding_not_found',
    );
    assertEnvelope(
      await api('PUT', path('not-a-fingerprint'), { key: account.liveKey, body: { status: 'ignored' } }),
      400,
      'invalid_request',
    );
    assertEnvelope(
      await api('PUT', path('fp_abc123'), { key: account.liveKey, body: { status: 'wontfix' } }),
      400,
      'invalid_request',
    );
    // Test keys do not see live sites.
    assertEnvelope(
      await api('PUT', path('fp_abc123'), { key: account.testKey, body: { status: 'ignored' } }),
      404,
      'site_not_found',
    );
  });

  it('lists the history of completed audits newest first, cursor-paginated', async () => {
    const account = await newAccount('pro');
    const created = await api('POST', '/v1/sites', {
      key: account.testKey,
      body: { domain: 'https://history.example.com', schedule: 'daily' },
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(
        await seedCompletedAudit(account, { domain: 'https://history.example.com', mode: 'test', fingerprints: [] }),
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const first = await api('GET', `/v1/sites/${created.body.site_id}/history?limit=2`, { key: account.testKey });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.data.map((e: { audit_id: string }) => e.audit_id),
      [ids[2], ids[1]],
    );
    assert.deepEqual(first.body.data[0].categories, { security: 80 });
    assert.equal(first.body.data[0].grade, 'B');
    const second = await api('GET', `/v1/sites/${created.body.site_id}/history?cursor=${first.body.next_cursor}`, {
      key: account.testKey,
    });
    assert.deepEqual(
      second.body.data.map((e: { audit_id: string }) => e.audit_id),
      [ids[0]],
    );
    assert.equal(second.body.has_more, false);
  });
});
