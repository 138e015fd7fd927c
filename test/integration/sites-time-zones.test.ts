import assert from 'node:assert/strict';
import { Client, type ScheduleDescription } from '@temporalio/client';
import { backfill } from '../../migrations/20261130100000_site_time_zones';
import { newSiteId } from '../../src/ids';
import { ClosableConnection } from '../../temporal/closable-connection';
import { siteScheduleId } from '../../workflows/contracts';
import { pageMessage } from '../support/dashboard-client';
import { ownerSessionCookie } from '../support/dashboard-session';
import { assertEnvelope } from '../support/envelope';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';

/** Schedules in the customer's time (docs/decisions.md): what POST/PATCH /v1/sites make of them in Temporal. */

async function withTemporal<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = ClosableConnection.open({ address: (await getStack()).temporalAddress });
  try {
    return await fn(new Client({ connection }));
  } finally {
    await connection.close();
  }
}

const describeSchedule = (siteId: string) =>
  withTemporal((client) => client.schedule.getHandle(siteScheduleId(siteId)).describe());

/** The site's calendar as plain values (the described spec gives ranges). */
function calendarOf(description: ScheduleDescription) {
  const [calendar] = description.spec.calendars ?? [];
  const only = <T>(ranges: Array<{ start: T; end: T }>) =>
    ranges.length === 1 && ranges[0].start === ranges[0].end ? ranges[0].start : ranges;
  return {
    timezone: description.spec.timezone,
    hour: only(calendar.hour),
    minute: only(calendar.minute),
    dayOfWeek: only(calendar.dayOfWeek),
    dayOfMonth: only(calendar.dayOfMonth),
  };
}

/**
 * The Temporal Server's own next times of the site's schedule from `from` on: a paused copy of its
 * spec starting then (the server's clock cannot be moved to a daylight-saving change; the spec's
 * start can).
 */
async function serverTimes(siteId: string, from: string, n: number): Promise<string[]> {
  const site = await describeSchedule(siteId);
  const [calendar] = site.spec.calendars!;
  return withTemporal(async (client) => {
    const copy = await client.schedule.create({
      scheduleId: `tz-probe-${siteId}-${Date.parse(from)}`,
      spec: {
        calendars: [
          {
            hour: calendar.hour,
            minute: calendar.minute,
            dayOfWeek: calendar.dayOfWeek,
            dayOfMonth: calendar.dayOfMonth,
          },
        ],
        timezone: site.spec.timezone,
        startAt: new Date(from),
      },
      action: { type: 'startWorkflow', workflowType: 'NeverStarted', taskQueue: 'tz-probe', args: [] },
      state: { paused: true },
    });
    try {
      return (await copy.describe()).info.nextActionTimes.slice(0, n).map((t) => t.toISOString());
    } finally {
      await copy.delete();
    }
  });
}

/** next_run_at as the API shows it with its clock at `from`, then at each firing it names, `n` times. */
async function apiTimes(account: TestAccount, siteId: string, from: string, n: number): Promise<string[]> {
  const { clock } = await getStack();
  const times: string[] = [];
  let now = from;
  try {
    for (let i = 0; i < n; i++) {
      clock.set(now);
      const site = await api('GET', `/v1/sites/${siteId}`, { key: account.testKey });
      assert.equal(site.status, 200, site.text);
      times.push(site.body.next_run_at);
      now = site.body.next_run_at;
    }
  } finally {
    clock.reset();
  }
  return times;
}

async function create(account: TestAccount, body: Record<string, unknown>) {
  const response = await api('POST', '/v1/sites', { key: account.testKey, body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** A dashboard page over plain HTTP with a session cookie and our Origin; a form POST when fields are given. */
async function dashboardPage(url: string, cookie: string, path: string, fields?: Record<string, string>) {
  const response = await fetch(`${url}${path}`, {
    method: fields ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      Cookie: cookie,
      Origin: url,
      Accept: 'text/html',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: fields ? new URLSearchParams(fields).toString() : undefined,
  });
  return { status: response.status, location: response.headers.get('location'), text: await response.text() };
}

describe("sites in the customer's time", function () {
  this.timeout(60_000);

  it('passes time zone, time and day to the Temporal Schedule; next_run_at is its next action', async () => {
    const account = await newAccount('pro');
    const weekly = await create(account, {
      domain: 'https://tz-weekly.example.com',
      schedule: 'weekly',
      time_zone: 'Europe/Berlin',
      at: '02:30',
      weekday: 'sun',
    });
    assert.deepEqual(
      { time_zone: weekly.time_zone, at: weekly.at, weekday: weekly.weekday, day_of_month: weekly.day_of_month },
      { time_zone: 'Europe/Berlin', at: '02:30', weekday: 'sun', day_of_month: null },
    );
    const monthly = await create(account, {
      domain: 'https://tz-monthly.example.com',
      schedule: 'monthly',
      time_zone: 'america/new_york',
      at: '21:15',
      day_of_month: 7,
    });
    assert.equal(monthly.time_zone, 'America/New_York');
    assert.equal(monthly.weekday, null);
    const before = Date.now();
    const plain = await create(account, { domain: 'https://tz-plain.example.com', schedule: 'daily' });
    const minute = (t: number) => new Date(t).toISOString().slice(11, 16);
    assert.equal(plain.time_zone, 'UTC');
    assert.ok([minute(before), minute(Date.now())].includes(plain.at), plain.at);

    const expected = [
      [weekly, { timezone: 'Europe/Berlin', hour: 2, minute: 30, dayOfWeek: 'SUNDAY' }],
      [monthly, { timezone: 'America/New_York', hour: 21, minute: 15, dayOfMonth: 7 }],
      [plain, { timezone: 'UTC', hour: Number(plain.at.slice(0, 2)), minute: Number(plain.at.slice(3)) }],
    ] as const;
    for (const [site, calendar] of expected) {
      const description = await describeSchedule(site.site_id);
      const actual = calendarOf(description);
      for (const [field, value] of Object.entries(calendar))
        assert.deepEqual(actual[field as keyof typeof actual], value, `${site.domain} ${field}`);
      if (!('dayOfWeek' in calendar)) assert.notEqual(typeof actual.dayOfWeek, 'string');
      if (!('dayOfMonth' in calendar)) assert.notEqual(typeof actual.dayOfMonth, 'number');
      const read = await api('GET', `/v1/sites/${site.site_id}`, { key: account.testKey });
      assert.equal(read.body.next_run_at, description.info.nextActionTimes[0].toISOString(), site.domain);
    }
  });

  it('names the same next runs as Temporal across daylight saving, in Berlin and New York', async () => {
    const account = await newAccount('pro');
    const berlin = await create(account, {
      domain: 'https://tz-berlin.example.com',
      schedule: 'weekly',
      time_zone: 'Europe/Berlin',
      at: '02:30',
      weekday: 'sun',
    });
    // Berlin springs forward on Sunday 2027-03-28 at 02:00: no 02:30 that day, so no run that week.
    const spring = ['2027-03-21T01:30:00.000Z', '2027-04-04T00:30:00.000Z', '2027-04-11T00:30:00.000Z'];
    assert.deepEqual(await serverTimes(berlin.site_id, '2027-03-20T12:00:00Z', 3), spring);
    assert.deepEqual(await apiTimes(account, berlin.site_id, '2027-03-20T12:00:00Z', 3), spring);
    // It falls back on Sunday 2027-10-31 at 03:00: 02:30 comes twice, and the run is at the second (CET).
    const fall = ['2027-10-31T01:30:00.000Z', '2027-11-07T01:30:00.000Z'];
    assert.deepEqual(await serverTimes(berlin.site_id, '2027-10-24T12:00:00Z', 2), fall);
    assert.deepEqual(await apiTimes(account, berlin.site_id, '2027-10-24T12:00:00Z', 2), fall);

    const newYork = await create(account, {
      domain: 'https://tz-newyork.example.com',
      schedule: 'daily',
      time_zone: 'America/New_York',
      at: '02:30',
    });
    // New York springs forward on 2027-03-14 at 02:00: no run that day.
    const skipped = ['2027-03-13T07:30:00.000Z', '2027-03-15T06:30:00.000Z', '2027-03-16T06:30:00.000Z'];
    assert.deepEqual(await serverTimes(newYork.site_id, '2027-03-13T00:00:00Z', 3), skipped);
    assert.deepEqual(await apiTimes(account, newYork.site_id, '2027-03-13T00:00:00Z', 3), skipped);
    const changed = await api('PATCH', `/v1/sites/${newYork.site_id}`, { key: account.testKey, body: { at: '01:30' } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(calendarOf(await describeSchedule(newYork.site_id)).hour, 1);
    // It falls back on 2027-11-07 at 02:00: 01:30 comes twice, and runs twice (EDT, then EST).
    const twice = [
      '2027-11-06T05:30:00.000Z',
      '2027-11-07T05:30:00.000Z',
      '2027-11-07T06:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ];
    assert.deepEqual(await serverTimes(newYork.site_id, '2027-11-06T00:00:00Z', 4), twice);
    assert.deepEqual(await apiTimes(account, newYork.site_id, '2027-11-06T00:00:00Z', 4), twice);
  });

  it('changes zone, time and day with PATCH: the local time stays, the day follows the schedule', async () => {
    const account = await newAccount('pro');
    const site = await create(account, {
      domain: 'https://tz-patch.example.com',
      schedule: 'weekly',
      time_zone: 'Europe/Berlin',
      at: '09:00',
      weekday: 'fri',
    });
    const patch = async (body: object) => {
      const response = await api('PATCH', `/v1/sites/${site.site_id}`, { key: account.testKey, body });
      assert.equal(response.status, 200, response.text);
      return response.body;
    };
    const moved = await patch({ time_zone: 'America/New_York' });
    assert.deepEqual([moved.time_zone, moved.at, moved.weekday], ['America/New_York', '09:00', 'fri']);
    const monthly = await patch({ schedule: 'monthly', day_of_month: 15 });
    assert.deepEqual([monthly.weekday, monthly.day_of_month], [null, 15]);
    const calendar = calendarOf(await describeSchedule(site.site_id));
    assert.deepEqual(
      [calendar.timezone, calendar.hour, calendar.minute, calendar.dayOfMonth],
      ['America/New_York', 9, 0, 15],
    );
    const daily = await patch({ schedule: 'daily' });
    assert.deepEqual([daily.weekday, daily.day_of_month], [null, null]);
    const description = await describeSchedule(site.site_id);
    assert.notEqual(typeof calendarOf(description).dayOfMonth, 'number');
    assert.equal(daily.next_run_at, description.info.nextActionTimes[0].toISOString());
  });

  it('refuses bad zones, times and days with the error envelope and stores nothing', async () => {
    const account = await newAccount('pro');
    const { db } = await getStack();
    const domain = 'https://tz-bad.example.com';
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ schedule: 'daily', time_zone: 'Mars/Olympus' }, /^field time_zone must be an IANA time zone name/],
      [{ schedule: 'daily', time_zone: '' }, /time_zone/],
      [{ schedule: 'daily', time_zone: 1 }, /^field time_zone must be of type string/],
      [{ schedule: 'daily', at: '24:00' }, /^field at must match pattern .*HH:MM/],
      [{ schedule: 'daily', at: '9:30' }, /^field at must match pattern/],
      [
        { schedule: 'daily', weekday: 'mon' },
        /^field weekday applies to weekly schedules only, and this schedule is daily/,
      ],
      [{ schedule: 'monthly', weekday: 'mon' }, /weekday applies to weekly schedules only/],
      [{ schedule: 'weekly', day_of_month: 3 }, /^field day_of_month applies to monthly schedules only/],
      [{ schedule: 'weekly', weekday: 'monday' }, /^field weekday must be one of: mon, tue/],
      [{ schedule: 'monthly', day_of_month: 29 }, /^field day_of_month must be <= 28/],
      [{ schedule: 'monthly', day_of_month: 1.5 }, /^field day_of_month must be of type integer/],
    ];
    for (const [body, message] of bad)
      assertEnvelope(
        await api('POST', '/v1/sites', { key: account.testKey, body: { domain, ...body } }),
        400,
        'invalid_request',
        message,
      );
    assert.equal((await db('sites').where({ account_id: account.accountId })).length, 0);

    const site = await create(account, {
      domain,
      schedule: 'weekly',
      time_zone: 'Asia/Tokyo',
      at: '07:45',
      weekday: 'wed',
    });
    const stored = await db('sites').where({ id: site.site_id }).first();
    const spec = (await describeSchedule(site.site_id)).spec;
    const badChanges: Array<[Record<string, unknown>, RegExp]> = [
      [{ time_zone: 'Nowhere/Special' }, /time_zone must be an IANA time zone name/],
      [{ at: '12:5' }, /field at must match pattern/],
      [{ day_of_month: 5 }, /day_of_month applies to monthly schedules only, and this schedule is weekly/],
      [{ schedule: 'daily', weekday: 'mon' }, /weekday applies to weekly schedules only, and this schedule is daily/],
      [{ paused: true, weekday: 'xyz' }, /weekday must be one of/],
    ];
    for (const [body, message] of badChanges)
      assertEnvelope(
        await api('PATCH', `/v1/sites/${site.site_id}`, { key: account.testKey, body }),
        400,
        'invalid_request',
        message,
      );
    assert.deepEqual(await db('sites').where({ id: site.site_id }).first(), stored);
    assert.deepEqual((await describeSchedule(site.site_id)).spec, spec);
  });

  it("adds a site in the customer's time from the dashboard's form, by the same rules", async () => {
    const account = await newAccount('pro');
    const { db, url } = await getStack();
    const cookie = await ownerSessionCookie(account);
    const page = async (method: 'GET' | 'POST', fields?: Record<string, string>) => {
      const response = await fetch(`${url}/test/sites`, {
        method,
        redirect: 'manual',
        headers: {
          Cookie: cookie,
          Origin: url,
          Accept: 'text/html',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: fields ? new URLSearchParams(fields).toString() : undefined,
      });
      return { status: response.status, text: await response.text() };
    };
    const form = await page('GET');
    assert.match(form.text, /<select id="site-time-zone" name="time_zone">/);
    assert.match(form.text, /<option value="America\/New_York">/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1];
    const domain = 'https://tz-dashboard.example.com';
    const fields = { _csrf: csrf, domain, time_zone: 'Europe/Berlin', at: '', weekday: '', day_of_month: '' };
    for (const [bad, message] of [
      [{ schedule: 'daily', weekday: 'mon' }, /weekday applies to weekly schedules only, and this schedule is daily/],
      [{ schedule: 'monthly', day_of_month: 'x' }, /day_of_month must be a whole number from 1 to 28/],
      [{ schedule: 'daily', time_zone: 'Europe/Nowhere' }, /time_zone must be an IANA time zone name/],
      [{ schedule: 'daily', at: '25:00' }, /at must be a time of day as HH:MM/],
    ] as const) {
      const refused = await page('POST', { ...fields, ...bad });
      assert.equal(refused.status, 400, pageMessage(refused.text));
      assert.match(pageMessage(refused.text), message);
    }
    assert.equal((await db('sites').where({ account_id: account.accountId })).length, 0);
    const added = await page('POST', { ...fields, schedule: 'weekly', at: '02:30', weekday: 'sun' });
    assert.equal(added.status, 303, pageMessage(added.text));
    const row = await db('sites').where({ account_id: account.accountId }).first();
    assert.deepEqual([row.time_zone, row.at, row.weekday, row.day_of_month], ['Europe/Berlin', '02:30', 'sun', null]);
    assert.equal(calendarOf(await describeSchedule(row.id)).timezone, 'Europe/Berlin');
    assert.match((await page('GET')).text, /weekly, sun 02:30 Europe\/Berlin/);
  });

  it("changes a site's schedule from its dashboard page, by the service PATCH uses, with CSRF", async () => {
    const account = await newAccount('pro');
    const { db, url } = await getStack();
    const cookie = await ownerSessionCookie(account);
    const site = await create(account, {
      domain: 'https://tz-dashboard-edit.example.com',
      schedule: 'weekly',
      time_zone: 'Europe/Berlin',
      at: '09:00',
      weekday: 'fri',
    });
    const path = `/test/sites/${site.site_id}`;
    const page = (sent: string, fields?: Record<string, string>, sessionCookie = cookie) =>
      dashboardPage(url, sessionCookie, sent, fields);
    const shown = await page(path);
    assert.equal(shown.status, 200, pageMessage(shown.text));
    assert.match(shown.text, /Audited weekly, fri 09:00 Europe\/Berlin/);
    assert.match(shown.text, /<option value="Europe\/Berlin" selected>/);
    assert.match(shown.text, /<option value="fri" selected>/);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(shown.text)![1];
    const stored = await db('sites').where({ id: site.site_id }).first();
    const spec = (await describeSchedule(site.site_id)).spec;
    const unchanged = async (what: string) => {
      assert.deepEqual(await db('sites').where({ id: site.site_id }).first(), stored, what);
      assert.deepEqual((await describeSchedule(site.site_id)).spec, spec, what);
    };

    const fields = { _csrf: csrf, schedule: 'weekly', time_zone: 'Europe/Berlin', at: '09:00', weekday: 'fri' };
    const forged = await page(`${path}/schedule`, { ...fields, _csrf: 'not-the-token', at: '10:00' });
    assert.equal(forged.status, 403);
    assert.match(pageMessage(forged.text), /This form has expired/);
    await unchanged('forged');
    for (const [bad, status, message] of [
      [{ time_zone: 'Mars/Olympus' }, 400, /^field time_zone must be an IANA time zone name/],
      [{ at: '25:00' }, 400, /^field at must be a time of day as HH:MM/],
      [{ schedule: 'daily' }, 400, /^field weekday applies to weekly schedules only, and this schedule is daily/],
      [{ schedule: 'monthly', weekday: '', day_of_month: '29' }, 400, /^field day_of_month must be a whole number/],
      [{ schedule: 'hourly' }, 422, /^Choose daily, weekly or monthly\.$/],
    ] as const) {
      const refused = await page(`${path}/schedule`, { ...fields, ...bad });
      assert.equal(refused.status, status, pageMessage(refused.text));
      assert.match(pageMessage(refused.text), message);
      // The form stays open with what was typed.
      assert.match(refused.text, /<details open>/);
      if ('at' in bad) assert.match(refused.text, /name="at" type="time" value="25:00"/);
      await unchanged(JSON.stringify(bad));
    }
    const stranger = await ownerSessionCookie(await newAccount('pro'));
    const elsewhere = await page(`${path}/schedule`, fields, stranger);
    assert.equal(elsewhere.status, 403, 'the CSRF token is the session’s');
    const strangerPage = await page('/test/sites', undefined, stranger);
    const strangerCsrf = /name="_csrf" value="([^"]+)"/.exec(strangerPage.text)![1];
    const notTheirs = await page(`${path}/schedule`, { ...fields, _csrf: strangerCsrf, at: '10:00' }, stranger);
    assert.equal(notTheirs.status, 404, pageMessage(notTheirs.text));
    await unchanged('another workspace');

    const saved = await page(`${path}/schedule`, {
      ...fields,
      schedule: 'monthly',
      time_zone: 'America/New_York',
      at: '21:15',
      weekday: '',
      day_of_month: '7',
    });
    assert.equal(saved.status, 303, pageMessage(saved.text));
    assert.equal(saved.location, `${path}?saved=1`);
    const row = await db('sites').where({ id: site.site_id }).first();
    assert.deepEqual(
      [row.schedule, row.time_zone, row.at, row.weekday, row.day_of_month],
      ['monthly', 'America/New_York', '21:15', null, 7],
    );
    const description = await describeSchedule(site.site_id);
    assert.deepEqual(
      [calendarOf(description).timezone, calendarOf(description).hour, calendarOf(description).dayOfMonth],
      ['America/New_York', 21, 7],
    );
    const read = await api('GET', `/v1/sites/${site.site_id}`, { key: account.testKey });
    assert.equal(read.body.next_run_at, description.info.nextActionTimes[0].toISOString());
    const after = await page(`${path}?saved=1`);
    assert.match(after.text, /Schedule saved\./);
    assert.match(after.text, /Audited monthly, day 7 21:15 America\/New_York/);
    assert.match(
      after.text,
      new RegExp(`<time datetime="${read.body.next_run_at}">[^<]* 21:15 America/New_York</time>`),
    );
  });

  it('keeps the schedules of sites from before time zones: the minute and day of their creation in UTC', async () => {
    const account = await newAccount('pro');
    const { db, clock } = await getStack();
    // Rows as the code before time zones wrote them (the columns' defaults), as during an upgrade.
    const legacy = async (schedule: string, createdAt: string) => {
      const id = newSiteId();
      await db('sites').insert({
        id,
        workspace_id: account.workspaceId,
        account_id: account.accountId,
        mode: 'test',
        domain: `https://legacy-${schedule}.example.com`,
        schedule,
        paused: false,
        created_at: createdAt,
        updated_at: createdAt,
      });
      return id;
    };
    const monthly = await legacy('monthly', '2026-01-31T23:59:40Z');
    const weekly = await legacy('weekly', '2026-11-23T06:45:30Z'); // a Monday
    const read = async (id: string) => {
      clock.set('2026-11-28T08:00:00Z');
      try {
        const { body } = await api('GET', `/v1/sites/${id}`, { key: account.testKey });
        return [body.time_zone, body.at, body.weekday, body.day_of_month, body.next_run_at];
      } finally {
        clock.reset();
      }
    };
    const monthlyBefore = ['UTC', '23:59', null, 28, '2026-11-28T23:59:00.000Z'];
    const weeklyBefore = ['UTC', '06:45', 'mon', null, '2026-11-30T06:45:00.000Z'];
    assert.deepEqual(await read(monthly), monthlyBefore);
    assert.deepEqual(await read(weekly), weeklyBefore);
    // What the migration wrote into the rows that existed then.
    await backfill(db);
    const rows = await db('sites').whereIn('id', [monthly, weekly]).orderBy('schedule');
    assert.deepEqual(
      rows.map((r) => [r.schedule, r.time_zone, r.at, r.weekday, r.day_of_month]),
      [
        ['monthly', 'UTC', '23:59', null, 28],
        ['weekly', 'UTC', '06:45', 'mon', null],
      ],
    );
    assert.deepEqual(await read(monthly), monthlyBefore);
    assert.deepEqual(await read(weekly), weeklyBefore);
  });
});
