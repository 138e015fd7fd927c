/**
 * Wall-clock time in IANA time zones, from Intl alone: the local time an instant shows, and the
 * instant a local time names the way Go's time.Date picks it, which is how Temporal Server resolves
 * a Schedule's calendar (docs/decisions.md, "Schedules in the customer's time").
 */

const HOUR_MS = 3_600_000;

/** Zone names a site may use: the runtime's IANA zones and UTC, by lower case; built on first use (ICU takes ~20 ms). */
let zones: Map<string, string> | undefined;
function zoneNames(): Map<string, string> {
  zones ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  return zones;
}

/** Every zone a site may use, UTC first (the dashboard's choice). */
export function timeZones(): string[] {
  return ['UTC', ...[...zoneNames().values()].filter((zone) => zone !== 'UTC').sort()];
}

/** The zone as Intl spells it, or undefined when it is none of the supported ones. */
export function canonicalTimeZone(name: string): string | undefined {
  return zoneNames().get(name.toLowerCase());
}

export interface WallClock {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** What a clock in `timeZone` shows at `instantMs` (whole seconds). */
export function wallClock(timeZone: string, instantMs: number): WallClock {
  const parts: Record<string, number> = {};
  for (const part of format(timeZone).formatToParts(instantMs))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const { year, month, day, hour, minute, second } = parts;
  return { year, month, day, hour, minute, second, weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay() };
}

/** How far the zone's clocks are ahead of UTC at `instantMs`. */
function offsetAt(timeZone: string, instantMs: number): number {
  const c = wallClock(timeZone, instantMs);
  const whole = Math.floor(instantMs / 1000) * 1000;
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) - whole;
}

/**
 * The instant of a local time, as Go's time.Date gives it (out-of-range fields carry over): the
 * offset in force at the local time read as UTC, unless that instant lies outside it. So in a
 * repeated hour it is the earlier copy west of Greenwich and the later one east of it, and in a
 * skipped hour an instant whose clock shows another hour.
 */
export function localInstant(timeZone: string, y: number, mo: number, d: number, h: number, mi: number): number {
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, 0);
  const guess = offsetAt(timeZone, asUtc);
  const actual = offsetAt(timeZone, asUtc - guess);
  return asUtc - (actual === guess ? guess : actual);
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export { HOUR_MS };
