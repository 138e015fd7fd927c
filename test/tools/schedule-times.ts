import { Client } from '@temporalio/client';
import { freePort } from '../../src/db/embedded';
import { ensureTemporalCli } from '../../src/setup/temporal-cli';
import { startDevServer } from '../../src/setup/temporal-dev-server';
import { nextRunAt, type CalendarCadence } from '../../src/sites/cadence';
import { wallClock } from '../../src/sites/zoned-time';
import { ClosableConnection } from '../../temporal/closable-connection';

/**
 * `npm exec -- node --import tsx test/tools/schedule-times.ts [year]`: next_run_at's rule
 * (src/sites/cadence.ts) against Temporal Server's own next action times, around every
 * daylight-saving change of the year (default 2027) in zones with unusual ones (at midnight,
 * by 30 minutes, with 45-minute offsets), for times just before, in and after the changed hour,
 * daily and weekly, from several starting points. Prints each difference; exits 1 if any.
 */
const ZONES = [
  'Europe/Berlin',
  'America/New_York',
  'Europe/London',
  'Europe/Dublin',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Auckland',
  'America/Santiago',
  'America/Asuncion',
  'America/Havana',
  'Asia/Beirut',
  'Asia/Gaza',
  'Africa/Casablanca',
];
const DAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

function offsetAt(zone: string, t: number): number {
  const c = wallClock(zone, t);
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) - Math.floor(t / 1000) * 1000;
}

/** Instants (to the quarter hour) at which the zone's offset changes during the year. */
function changes(zone: string, year: number): number[] {
  const found: number[] = [];
  let t = Date.UTC(year, 0, 1);
  let offset = offsetAt(zone, t);
  for (; t < Date.UTC(year + 1, 0, 1); t += 900_000) {
    const now = offsetAt(zone, t);
    if (now !== offset) found.push(t);
    offset = now;
  }
  return found;
}

function cases(year: number): Array<{ cadence: CalendarCadence; startAt: Date }> {
  const all: Array<{ cadence: CalendarCadence; startAt: Date }> = [];
  for (const timeZone of ZONES)
    for (const change of changes(timeZone, year)) {
      const before = wallClock(timeZone, change - 3_600_000);
      for (const shift of [-1, 0, 1, 2])
        for (const minute of [0, 30, 45])
          for (const from of [-86_400_000, -1_800_000, 900_000])
            for (const weekly of [false, true])
              all.push({
                cadence: {
                  kind: 'calendar',
                  timeZone,
                  hour: (before.hour + shift + 24) % 24,
                  minute,
                  ...(weekly ? { dayOfWeek: wallClock(timeZone, change).weekday } : {}),
                },
                startAt: new Date(change + from + 7_000),
              });
    }
  return all;
}

async function main(): Promise<number> {
  const year = Number(process.argv[2] ?? 2027);
  const dev = await startDevServer({ cliPath: await ensureTemporalCli(), port: await freePort(), headless: true });
  const connection = ClosableConnection.open({ address: dev.address });
  const client = new Client({ connection });
  const all = cases(year);
  let differences = 0;
  const check = async ({ cadence, startAt }: (typeof all)[number], i: number) => {
    const { dayOfWeek, hour, minute, timeZone } = cadence;
    const handle = await client.schedule.create({
      scheduleId: `schedule-times-${i}`,
      spec: {
        calendars: [{ hour, minute, ...(dayOfWeek !== undefined ? { dayOfWeek: DAYS[dayOfWeek] } : {}) }],
        timezone: timeZone,
        startAt,
      },
      action: { type: 'startWorkflow', workflowType: 'NeverStarted', taskQueue: 'schedule-times', args: [] },
      state: { paused: true },
    });
    const theirs = (await handle.describe()).info.nextActionTimes.slice(0, 5).map((t) => t.toISOString());
    await handle.delete();
    const ours: string[] = [];
    for (let t = new Date(startAt.getTime() - 1000); ours.length < theirs.length; ours.push(t.toISOString()))
      t = nextRunAt(cadence, t);
    if (JSON.stringify(ours) === JSON.stringify(theirs)) return;
    differences++;
    console.log(`${JSON.stringify(cadence)} from ${startAt.toISOString()}\n  temporal ${theirs}\n  ours     ${ours}`);
  };
  try {
    for (let i = 0; i < all.length; i += 50) await Promise.all(all.slice(i, i + 50).map((c, j) => check(c, i + j)));
  } finally {
    await connection.close();
    await dev.stop();
  }
  console.log(`${all.length} cases around ${year}'s daylight-saving changes, ${differences} differences`);
  return differences === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
