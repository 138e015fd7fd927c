import type { Tier } from '../schemas/audit';

export const SITE_SCHEDULES = ['daily', 'weekly', 'monthly'] as const;
export type SiteSchedule = (typeof SITE_SCHEDULES)[number];

/** Sites an account may keep per environment (docs/decisions.md, Monitoring); null: no limit. */
export const SITE_LIMITS: Record<Tier, number | null> = { free: 0, pro: 10, team: 50, enterprise: null };

/**
 * When a site's schedule fires, as the Temporal Schedule's spec says it. A site runs at the minute
 * of day it was created (UTC): daily, on that weekday, or on that day of the month (the 28th at the
 * latest, so every month has it). Spreading sites over the day keeps one worker from receiving
 * every firing at midnight. SITE_SCHEDULE_OVERRIDE_MS replaces all of this with one interval.
 */
export type Cadence =
  | { kind: 'interval'; everyMs: number }
  | { kind: 'calendar'; hour: number; minute: number; dayOfWeek?: number; dayOfMonth?: number };

export function siteCadence(site: { schedule: SiteSchedule; created_at: Date }, overrideMs: number): Cadence {
  if (overrideMs > 0) return { kind: 'interval', everyMs: overrideMs };
  const created = new Date(site.created_at);
  const at = { kind: 'calendar' as const, hour: created.getUTCHours(), minute: created.getUTCMinutes() };
  switch (site.schedule) {
    case 'daily':
      return at;
    case 'weekly':
      return { ...at, dayOfWeek: created.getUTCDay() };
    case 'monthly':
      return { ...at, dayOfMonth: Math.min(created.getUTCDate(), 28) };
  }
}

/** The first firing strictly after `now` (intervals count from the Unix epoch, as Temporal's do). */
export function nextRunAt(cadence: Cadence, now: Date): Date {
  const t = now.getTime();
  if (cadence.kind === 'interval') return new Date((Math.floor(t / cadence.everyMs) + 1) * cadence.everyMs);
  const candidate = new Date(now);
  candidate.setUTCSeconds(0, 0);
  candidate.setUTCHours(cadence.hour, cadence.minute);
  // At most 62 days ahead (a monthly run on the 28th); one day at a time is plenty fast.
  for (let i = 0; i < 63; i++) {
    if (candidate.getTime() > t && matches(cadence, candidate)) return candidate;
    candidate.setUTCDate(candidate.getUTCDate() + 1);
  }
  throw new Error(`no firing of ${JSON.stringify(cadence)} within 63 days`);
}

function matches(cadence: Extract<Cadence, { kind: 'calendar' }>, day: Date): boolean {
  if (cadence.dayOfWeek !== undefined && day.getUTCDay() !== cadence.dayOfWeek) return false;
  if (cadence.dayOfMonth !== undefined && day.getUTCDate() !== cadence.dayOfMonth) return false;
  return true;
}

/** A readable description for the Temporal UI (the schedule's memo) and logs. */
export function describeCadence(cadence: Cadence): string {
  if (cadence.kind === 'interval') return `every ${cadence.everyMs} ms (SITE_SCHEDULE_OVERRIDE_MS)`;
  const time = `${String(cadence.hour).padStart(2, '0')}:${String(cadence.minute).padStart(2, '0')} UTC`;
  if (cadence.dayOfWeek !== undefined) return `weekly on day ${cadence.dayOfWeek} (0 = Sunday) at ${time}`;
  if (cadence.dayOfMonth !== undefined) return `monthly on day ${cadence.dayOfMonth} at ${time}`;
  return `daily at ${time}`;
}
