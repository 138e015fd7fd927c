import assert from 'node:assert/strict';
import { nextRunAt, siteCadence } from '../../src/sites/cadence';

const created = new Date('2026-11-23T06:45:30.123Z'); // a Monday

describe('site cadence', () => {
  it('runs at the minute of day the site was created, on its weekday or day of the month', () => {
    assert.deepEqual(siteCadence({ schedule: 'daily', created_at: created }, 0), {
      kind: 'calendar',
      timeZone: 'UTC',
      hour: 6,
      minute: 45,
    });
    assert.deepEqual(siteCadence({ schedule: 'weekly', created_at: created }, 0), {
      kind: 'calendar',
      timeZone: 'UTC',
      hour: 6,
      minute: 45,
      dayOfWeek: 1,
    });
    const late = new Date('2026-01-31T23:59:00.000Z');
    assert.equal(siteCadence({ schedule: 'monthly', created_at: late }, 0).kind, 'calendar');
    assert.equal((siteCadence({ schedule: 'monthly', created_at: late }, 0) as { dayOfMonth: number }).dayOfMonth, 28);
  });

  it('SITE_SCHEDULE_OVERRIDE_MS replaces every schedule with one interval from the epoch', () => {
    const cadence = siteCadence({ schedule: 'monthly', created_at: created }, 1500);
    assert.deepEqual(cadence, { kind: 'interval', everyMs: 1500 });
    assert.equal(nextRunAt(cadence, new Date(3000)).getTime(), 4500);
    assert.equal(nextRunAt(cadence, new Date(3001)).getTime(), 4500);
  });

  it('names the next firing strictly after now', () => {
    const daily = siteCadence({ schedule: 'daily', created_at: created }, 0);
    assert.equal(nextRunAt(daily, created).toISOString(), '2026-11-24T06:45:00.000Z');
    assert.equal(nextRunAt(daily, new Date('2026-11-24T06:44:59.999Z')).toISOString(), '2026-11-24T06:45:00.000Z');
    const weekly = siteCadence({ schedule: 'weekly', created_at: created }, 0);
    assert.equal(nextRunAt(weekly, created).toISOString(), '2026-11-30T06:45:00.000Z');
    const monthly = siteCadence({ schedule: 'monthly', created_at: new Date('2026-01-31T23:59:00.000Z') }, 0);
    assert.equal(nextRunAt(monthly, new Date('2026-02-28T23:59:00.000Z')).toISOString(), '2026-03-28T23:59:00.000Z');
  });
});
