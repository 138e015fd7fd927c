import type { Tier } from '../schemas/audit';
import { daysInMonth, HOUR_MS, localInstant, wallClock } from './zoned-time';

export const SITE_SCHEDULES = ['daily', 'weekly', 'monthly'] as const;
export type SiteSchedule = (typeof SITE_SCHEDULES)[number];

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Day numbers as Temporal's calendar and Date count them (0 = Sunday). */
const DAY_NUMBER: Record<Weekday, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** Sites an account may keep per environment (docs/decisions.md, Monitoring); null: no limit. */
export const SITE_LIMITS: Record<Tier, number | null> = { free: 0, pro: 10, team: 50, enterprise: null };

/** When a site runs, in its customer's words: a zone, a time of day ("HH:MM") and, by schedule, the day. */
export interface SiteTiming {
  time_zone: string;
  at: string;
  /** Weekly schedules only. */
  weekday: Weekday | null;
  /** Monthly schedules only: 1–28, so every month has it. */
  day_of_month: number | null;
}

/** The columns a site row keeps its timing in; an older row may hold nulls (see siteTiming). */
export interface TimedSite {
  schedule: SiteSchedule;
  created_at: Date;
  time_zone?: string | null;
  at?: string | null;
  weekday?: string | null;
  day_of_month?: number | null;
}

/**
 * The site's timing, what its row leaves null being the default: the minute, weekday or day of
 * the month (the 28th at the latest) of its creation in its zone. Sites from before time zones
 * (UTC, nulls) thus keep the schedule they had (docs/decisions.md, "Schedules in the customer's time").
 */
export function siteTiming(site: TimedSite): SiteTiming {
  const timeZone = site.time_zone ?? 'UTC';
  const created = wallClock(timeZone, new Date(site.created_at).getTime());
  return {
    time_zone: timeZone,
    at: site.at ?? `${pad(created.hour)}:${pad(created.minute)}`,
    weekday: site.schedule === 'weekly' ? ((site.weekday as Weekday | null) ?? weekdayName(created.weekday)) : null,
    day_of_month: site.schedule === 'monthly' ? (site.day_of_month ?? Math.min(created.day, 28)) : null,
  };
}

export function weekdayName(day: number): Weekday {
  return WEEKDAYS[(day + 6) % 7];
}

/**
 * When a site's schedule fires, as the Temporal Schedule's spec says it: a calendar in the site's
 * zone (Temporal resolves daylight saving itself). SITE_SCHEDULE_OVERRIDE_MS replaces all of this
 * with one interval.
 */
export type Cadence = { kind: 'interval'; everyMs: number } | CalendarCadence;
export interface CalendarCadence {
  kind: 'calendar';
  timeZone: string;
  hour: number;
  minute: number;
  dayOfWeek?: number;
  dayOfMonth?: number;
}

export function siteCadence(site: TimedSite, overrideMs: number): Cadence {
  if (overrideMs > 0) return { kind: 'interval', everyMs: overrideMs };
  const timing = siteTiming(site);
  const [hour, minute] = timing.at.split(':').map(Number);
  return {
    kind: 'calendar',
    timeZone: timing.time_zone,
    hour,
    minute,
    ...(timing.weekday ? { dayOfWeek: DAY_NUMBER[timing.weekday] } : {}),
    ...(timing.day_of_month ? { dayOfMonth: timing.day_of_month } : {}),
  };
}

/** The first firing strictly after `now` (intervals count from the Unix epoch, as Temporal's do). */
export function nextRunAt(cadence: Cadence, now: Date): Date {
  const t = now.getTime();
  if (cadence.kind === 'interval') return new Date((Math.floor(t / cadence.everyMs) + 1) * cadence.everyMs);
  return nextCalendarTime(cadence, t);
}

/**
 * Temporal Server's own rule for a calendar spec's next time (compiledCalendar.next in its
 * scheduler, for one hour, one minute and second 0), step by step, so that next_run_at is the
 * time the Schedule fires, daylight saving included: a time the clocks skip does not fire that
 * day; in a repeated hour the local time resolves as Go's time.Date does (localInstant), and the
 * hour is taken a second time only where that picks the earlier copy (docs/decisions.md).
 */
function nextCalendarTime(c: CalendarCadence, now: number): Date {
  const zone = c.timeZone;
  const at = (y: number, mo: number, d: number, h: number, m: number) => localInstant(zone, y, mo, d, h, m);
  const from = Math.floor(now / 1000) * 1000;
  let { year: y, month: mo, day: d, hour: h, minute: m, second: s } = wallClock(zone, from);
  // In the second copy of a repeated hour, a match later in the same hour lies an hour on.
  let dst = wallClock(zone, from - HOUR_MS).hour === h ? HOUR_MS : 0;
  s++;
  outer: for (;;) {
    if (s >= 60) [m, s] = [m + 1, 0];
    if (m >= 60) {
      const previous = at(y, mo, d, h, 0);
      [h, m] = [h + 1, 0];
      // More than an hour to the next hour's start: this hour repeats; try it again, an hour on.
      if (dst === 0 && at(y, mo, d, h, 0) - previous > HOUR_MS) [h, dst] = [h - 1, HOUR_MS];
      else dst = 0;
    }
    if (h >= 24) [d, h] = [d + 1, 0];
    if (d > daysInMonth(y, mo)) [mo, d] = [mo + 1, 1];
    if (mo > 12) [y, mo] = [y + 1, 1];
    if (y > 2100) throw new Error(`no firing of ${JSON.stringify(c)} before 2101`);
    while (!dayMatches(c, y, mo, d, h, m)) {
      [d, h, m, s, dst] = [d + 1, 0, 0, 0, 0];
      if (d > daysInMonth(y, mo)) continue outer;
    }
    while (h !== c.hour) {
      [h, m, s, dst] = [h + 1, 0, 0, 0];
      if (h >= 24) continue outer;
    }
    while (m !== c.minute) {
      [m, s] = [m + 1, 0];
      if (m >= 60) continue outer;
    }
    if (s !== 0) {
      s = 60;
      continue outer;
    }
    const next = at(y, mo, d, h, m);
    // The clocks skipped this time (it resolves to another hour): nothing fires that day.
    if (wallClock(zone, next).hour !== h) {
      [h, m, s] = [h + 1, 0, 0];
      continue outer;
    }
    return new Date(next + dst);
  }
}

function dayMatches(c: CalendarCadence, y: number, mo: number, d: number, h: number, m: number): boolean {
  if (c.dayOfMonth !== undefined && d !== c.dayOfMonth) return false;
  return (
    c.dayOfWeek === undefined || wallClock(c.timeZone, localInstant(c.timeZone, y, mo, d, h, m)).weekday === c.dayOfWeek
  );
}

/** A readable description for the Temporal UI (the schedule's note) and logs. */
export function describeCadence(cadence: Cadence): string {
  if (cadence.kind === 'interval') return `every ${cadence.everyMs} ms (SITE_SCHEDULE_OVERRIDE_MS)`;
  const time = `${pad(cadence.hour)}:${pad(cadence.minute)} ${cadence.timeZone}`;
  if (cadence.dayOfWeek !== undefined) return `weekly on ${weekdayName(cadence.dayOfWeek)} at ${time}`;
  if (cadence.dayOfMonth !== undefined) return `monthly on day ${cadence.dayOfMonth} at ${time}`;
  return `daily at ${time}`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
