import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors';
import { nextRunAt, siteCadence, type Cadence, type TimedSite } from '../../src/sites/cadence';
import { resolveSiteTiming, type SiteTimingInput } from '../../src/sites/service';
import type { SiteSchedule } from '../../src/sites/cadence';

// A Monday, 23:30 in UTC: already Tuesday the 24th in Berlin, still Monday evening in New York.
const created = new Date('2026-11-23T23:30:00.000Z');

function refused(schedule: SiteSchedule, input: SiteTimingInput, message: RegExp, current?: TimedSite): void {
  assert.throws(
    () => resolveSiteTiming(schedule, input, created, current),
    (err: unknown) => err instanceof ApiError && err.code === 'invalid_request' && message.test(err.message),
    JSON.stringify(input),
  );
}

/** The next `n` firings after `from`, one after the other, as next_run_at would name them. */
function firings(cadence: Omit<Extract<Cadence, { kind: 'calendar' }>, 'kind'>, from: string, n: number): string[] {
  const out: string[] = [];
  let t = new Date(from);
  for (let i = 0; i < n; i++) {
    t = nextRunAt({ kind: 'calendar', ...cadence }, t);
    out.push(t.toISOString());
  }
  return out;
}

describe("site schedules in the customer's time: the rules", () => {
  it('accepts IANA zones (in any case) and UTC, and refuses anything else naming the field', () => {
    assert.equal(resolveSiteTiming('daily', { time_zone: 'europe/berlin' }, created).time_zone, 'Europe/Berlin');
    assert.equal(resolveSiteTiming('daily', { time_zone: 'UTC' }, created).time_zone, 'UTC');
    assert.equal(resolveSiteTiming('daily', {}, created).time_zone, 'UTC');
    for (const zone of ['Mars/Olympus', '', 'Europe/Berlin ', '+01:00', 'Europe', 'x'.repeat(64)])
      refused('daily', { time_zone: zone }, /^field time_zone must be an IANA time zone name/);
  });

  it('takes at as HH:MM on a 24-hour clock', () => {
    for (const at of ['00:00', '09:05', '23:59']) assert.equal(resolveSiteTiming('daily', { at }, created).at, at);
    for (const at of ['24:00', '9:30', '09:60', '09:30:00', '0930', ' 09:30', ''])
      refused('daily', { at }, /^field at must be a time of day as HH:MM/);
  });

  it("defaults to the minute, weekday and day of the month of creation in the site's zone", () => {
    assert.deepEqual(resolveSiteTiming('weekly', { time_zone: 'Europe/Berlin' }, created), {
      time_zone: 'Europe/Berlin',
      at: '00:30',
      weekday: 'tue',
      day_of_month: null,
    });
    assert.deepEqual(resolveSiteTiming('monthly', { time_zone: 'America/New_York' }, created), {
      time_zone: 'America/New_York',
      at: '18:30',
      weekday: null,
      day_of_month: 23,
    });
    const late = resolveSiteTiming('monthly', {}, new Date('2027-01-31T12:00:00Z'));
    assert.equal(late.day_of_month, 28, 'the 28th at the latest, so every month has it');
  });

  it('refuses a weekday outside weekly schedules and a day of the month outside monthly ones', () => {
    refused(
      'daily',
      { weekday: 'mon' },
      /^field weekday applies to weekly schedules only, and this schedule is daily$/,
    );
    refused('monthly', { weekday: 'mon' }, /weekday applies to weekly schedules only/);
    refused('weekly', { day_of_month: 3 }, /^field day_of_month applies to monthly schedules only/);
    refused('daily', { day_of_month: 3 }, /day_of_month applies to monthly schedules only/);
    refused('weekly', { weekday: 'monday' }, /^field weekday must be one of: mon, tue, wed, thu, fri, sat, sun$/);
    for (const day of [0, 29, 31, 1.5, Number.NaN])
      refused('monthly', { day_of_month: day }, /^field day_of_month must be a whole number from 1 to 28/);
    assert.equal(resolveSiteTiming('weekly', { weekday: 'sun' }, created).weekday, 'sun');
    assert.equal(resolveSiteTiming('monthly', { day_of_month: 28 }, created).day_of_month, 28);
  });

  it('on a change keeps what is not given (the local time across a zone change) and fills or drops the day', () => {
    const site: TimedSite = {
      schedule: 'weekly',
      created_at: created,
      time_zone: 'Europe/Berlin',
      at: '09:00',
      weekday: 'fri',
      day_of_month: null,
    };
    assert.deepEqual(resolveSiteTiming('weekly', { time_zone: 'America/New_York' }, created, site), {
      time_zone: 'America/New_York',
      at: '09:00',
      weekday: 'fri',
      day_of_month: null,
    });
    assert.deepEqual(resolveSiteTiming('monthly', {}, created, site), {
      time_zone: 'Europe/Berlin',
      at: '09:00',
      weekday: null,
      day_of_month: 24,
    });
    assert.deepEqual(resolveSiteTiming('daily', {}, created, site).weekday, null);
    // The site is weekly: a day of the month is refused until the schedule changes with it.
    refused('weekly', { day_of_month: 5 }, /this schedule is weekly/, site);
    assert.equal(resolveSiteTiming('monthly', { day_of_month: 5 }, created, site).day_of_month, 5);
  });

  it('keeps the schedule of a site from before time zones (nulls): the minute and day of creation in UTC', () => {
    const legacy: TimedSite = { schedule: 'monthly', created_at: new Date('2026-01-31T23:59:40Z'), time_zone: 'UTC' };
    assert.deepEqual(siteCadence(legacy, 0), {
      kind: 'calendar',
      timeZone: 'UTC',
      hour: 23,
      minute: 59,
      dayOfMonth: 28,
    });
    assert.deepEqual(resolveSiteTiming('monthly', { at: '08:00' }, legacy.created_at, legacy), {
      time_zone: 'UTC',
      at: '08:00',
      weekday: null,
      day_of_month: 28,
    });
  });
});

/**
 * next_run_at across daylight saving, as Temporal Server computes the Schedule's times (the
 * integration test sites-time-zones compares them with the server's own). Berlin: 2027-03-28
 * 02:00 CET → 03:00 CEST, 2027-10-31 03:00 CEST → 02:00 CET. New York: 2027-03-14 02:00 EST →
 * 03:00 EDT, 2027-11-07 02:00 EDT → 01:00 EST.
 */
describe("site schedules in the customer's time: next_run_at across daylight saving", () => {
  const berlin = 'Europe/Berlin';
  const newYork = 'America/New_York';

  it('Berlin, spring forward: 09:00 moves from 08:00Z to 07:00Z; a time in the skipped hour skips the day', () => {
    assert.deepEqual(firings({ timeZone: berlin, hour: 9, minute: 0 }, '2027-03-27T00:00:00Z', 2), [
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
    ]);
    assert.deepEqual(firings({ timeZone: berlin, hour: 2, minute: 30 }, '2027-03-27T00:00:00Z', 3), [
      '2027-03-27T01:30:00.000Z',
      '2027-03-29T00:30:00.000Z',
      '2027-03-30T00:30:00.000Z',
    ]);
  });

  it('Berlin, fall back: a time in the repeated hour fires once, at its second occurrence (CET)', () => {
    assert.deepEqual(firings({ timeZone: berlin, hour: 2, minute: 30 }, '2027-10-30T00:00:00Z', 3), [
      '2027-10-30T00:30:00.000Z',
      '2027-10-31T01:30:00.000Z',
      '2027-11-01T01:30:00.000Z',
    ]);
    assert.deepEqual(firings({ timeZone: berlin, hour: 9, minute: 0 }, '2027-10-30T12:00:00Z', 2), [
      '2027-10-31T08:00:00.000Z',
      '2027-11-01T08:00:00.000Z',
    ]);
  });

  it('New York, spring forward: a time in the skipped hour skips the day', () => {
    assert.deepEqual(firings({ timeZone: newYork, hour: 2, minute: 30 }, '2027-03-13T00:00:00Z', 2), [
      '2027-03-13T07:30:00.000Z',
      '2027-03-15T06:30:00.000Z',
    ]);
  });

  it('New York, fall back: a time in the repeated hour fires twice, EDT and then EST', () => {
    assert.deepEqual(firings({ timeZone: newYork, hour: 1, minute: 30 }, '2027-11-06T00:00:00Z', 4), [
      '2027-11-06T05:30:00.000Z',
      '2027-11-07T05:30:00.000Z',
      '2027-11-07T06:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ]);
  });

  it('a weekly or monthly time in the skipped hour skips that week or month', () => {
    // 2027-03-28 is a Sunday and the 28th: both lose their run.
    assert.deepEqual(firings({ timeZone: berlin, hour: 2, minute: 30, dayOfWeek: 0 }, '2027-03-22T00:00:00Z', 2), [
      '2027-04-04T00:30:00.000Z',
      '2027-04-11T00:30:00.000Z',
    ]);
    assert.deepEqual(firings({ timeZone: berlin, hour: 2, minute: 30, dayOfMonth: 28 }, '2027-02-28T02:00:00Z', 2), [
      '2027-04-28T00:30:00.000Z',
      '2027-05-28T00:30:00.000Z',
    ]);
  });

  it("matches the weekday and the day of the month in the site's zone, not in UTC", () => {
    // Monday 00:30 in Berlin is Sunday 23:30 UTC.
    assert.deepEqual(firings({ timeZone: berlin, hour: 0, minute: 30, dayOfWeek: 1 }, '2026-11-28T00:00:00Z', 2), [
      '2026-11-29T23:30:00.000Z',
      '2026-12-06T23:30:00.000Z',
    ]);
    // The 7th at 21:15 in New York is the 8th in UTC; EDT in October, EST in November.
    assert.deepEqual(firings({ timeZone: newYork, hour: 21, minute: 15, dayOfMonth: 7 }, '2027-10-01T00:00:00Z', 2), [
      '2027-10-08T01:15:00.000Z',
      '2027-11-08T02:15:00.000Z',
    ]);
  });

  it('names the first firing strictly after now, to the second', () => {
    const cadence = { timeZone: berlin, hour: 9, minute: 0 };
    assert.deepEqual(firings(cadence, '2027-06-01T07:00:00.000Z', 1), ['2027-06-02T07:00:00.000Z']);
    assert.deepEqual(firings(cadence, '2027-06-01T06:59:59.999Z', 1), ['2027-06-01T07:00:00.000Z']);
  });
});
