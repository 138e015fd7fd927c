import type { Db } from '../db/knex';
import { describeCadence, siteCadence, type Cadence } from './cadence';
import { claimOwedSchedules, confirmSchedule, releaseScheduleClaim, type OwedSchedule } from './owed-schedules';
import { loadSite } from './repository';

/** What a site's Temporal Schedule is made from: the committed site row. */
export interface ScheduledSite {
  siteId: string;
  workspaceId: string;
  mode: string;
  domain: string;
  cadence: Cadence;
  paused: boolean;
  /** Why it is paused, for the Temporal UI's note. */
  note: string;
  revision: number;
}

/** The sites' Temporal Schedules (temporal/site-schedules.ts); src/ depends on this, not on Temporal. */
export interface SiteSchedules {
  /** Creates or updates the schedule `site-{id}` to match; never writes an older revision over a newer one. */
  apply(site: ScheduledSite): Promise<void>;
  /** Deletes it; a schedule already gone is fine. */
  remove(siteId: string): Promise<void>;
}

export interface ScheduleSyncDeps {
  db: Db;
  schedules: SiteSchedules;
  /** SITE_SCHEDULE_OVERRIDE_MS (0: each site's own schedule). */
  overrideMs: number;
  log?: (message: string, err?: unknown) => void;
}

/**
 * Makes the site's schedule match its row as it is now (or removes it when the row is gone) and
 * settles the owed entry. Reading the row at this moment, not at the change, means any pass
 * brings the schedule up to date. Never throws: what fails stays owed for the reconciler.
 */
export async function settleOwedSchedule(deps: ScheduleSyncDeps, owed: OwedSchedule): Promise<boolean> {
  try {
    const site = await loadSite(deps.db, owed.siteId);
    if (site) await deps.schedules.apply(scheduledSite(site, deps.overrideMs));
    else await deps.schedules.remove(owed.siteId);
    await confirmSchedule(deps.db, owed);
    return true;
  } catch (err) {
    deps.log?.(`schedule of site ${owed.siteId} left to the reconciler`, err);
    await releaseScheduleClaim(deps.db, owed).catch(() => undefined);
    return false;
  }
}

export function scheduledSite(
  site: NonNullable<Awaited<ReturnType<typeof loadSite>>>,
  overrideMs: number,
): ScheduledSite {
  const cadence = siteCadence(site, overrideMs);
  const why =
    site.paused_reason === 'tier_limit' ? 'paused: over the tier limit after a downgrade' : 'paused by a user';
  return {
    siteId: site.id,
    workspaceId: site.workspace_id,
    mode: site.mode,
    domain: site.domain,
    cadence,
    paused: site.paused,
    note: `${site.domain} (${site.mode}), ${describeCadence(cadence)}${site.paused ? `; ${why}` : ''}`,
    revision: site.revision,
  };
}

/** One pass over owed schedules; returns how many were applied. */
export async function reconcileSiteSchedules(deps: ScheduleSyncDeps, batch = 100): Promise<number> {
  let applied = 0;
  for (const owed of await claimOwedSchedules(deps.db, batch)) if (await settleOwedSchedule(deps, owed)) applied++;
  return applied;
}

/** Runs a pass every `intervalMs` in the API process (as the audit reconciler does). */
export function runSiteScheduleReconciler(deps: ScheduleSyncDeps & { intervalMs: number }): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = reconcileSiteSchedules(deps)
        .catch((err) => deps.log?.('reconciling site schedules failed; retrying on the next pass', err))
        .finally(next);
    }, deps.intervalMs);
    timer.unref();
  };
  next();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
