import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptions,
  type ScheduleSpec,
} from '@temporalio/client';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { runSiteScheduleReconciler, type ScheduledSite, type SiteSchedules } from '../src/sites/schedule-sync';
import { TemporalAuditScheduler } from './audit-scheduler';
import { connectClient } from './connection';
import { SiteRunWorkflow } from '../workflows';
import { auditSearchAttributes, siteScheduleId } from '../workflows/contracts';
import type { Mode } from '../src/schemas/audit';

const REVISION = /\[revision (\d+)\]$/;

/**
 * Each site is a Temporal Schedule `site-{site_id}` starting SiteRunWorkflow, so operators see,
 * pause and trigger it in the Temporal UI and CLI (`temporal schedule trigger --schedule-id
 * site-…`). Overlap policy SKIP: a firing only triggers and records (well under a second), so an
 * overlap means the previous firing is stuck retrying (database down); buffering one more would
 * start a second audit right after it recovers, for no one's benefit. The catch-up window is one
 * hour: after a longer outage the next regular firing runs rather than a burst of missed ones.
 * The site's revision rides in the schedule's note, so a slow writer never puts an older state
 * over a newer one.
 */
export class TemporalSiteSchedules implements SiteSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  async apply(site: ScheduledSite): Promise<void> {
    const note = `${site.note} [revision ${site.revision}]`;
    try {
      await this.client.schedule.create({
        scheduleId: siteScheduleId(site.siteId),
        ...this.options(site),
        state: { paused: site.paused, note },
        memo: { site_id: site.siteId, domain: site.domain, mode: site.mode },
      });
      return;
    } catch (err) {
      if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    }
    await this.client.schedule
      .getHandle(siteScheduleId(site.siteId))
      .update((previous) => {
        const applied = Number(REVISION.exec(previous.state.note ?? '')?.[1] ?? 0);
        // An older revision than the schedule's: a later change already wrote it (abandon the update).
        if (applied > site.revision) throw new OlderRevision();
        return { ...previous, ...this.options(site), state: { paused: site.paused, note } };
      })
      .catch((err: unknown) => {
        if (!(err instanceof OlderRevision)) throw err;
      });
  }

  async remove(siteId: string): Promise<void> {
    try {
      await this.client.schedule.getHandle(siteScheduleId(siteId)).delete();
    } catch (err) {
      if (!(err instanceof ScheduleNotFoundError)) throw err;
    }
  }

  private options(site: ScheduledSite): Pick<ScheduleOptions, 'spec' | 'action' | 'policies'> {
    return {
      spec: specOf(site),
      action: {
        type: 'startWorkflow',
        workflowType: SiteRunWorkflow,
        workflowId: siteScheduleId(site.siteId),
        taskQueue: this.taskQueue,
        args: [{ siteId: site.siteId }],
        typedSearchAttributes: auditSearchAttributes({
          domain: site.domain,
          workspaceId: site.workspaceId,
          mode: site.mode as Mode,
        }),
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    };
  }
}

class OlderRevision extends Error {}

function specOf(site: ScheduledSite): ScheduleSpec {
  const { cadence } = site;
  if (cadence.kind === 'interval') return { intervals: [{ every: cadence.everyMs }] };
  // The calendar is local to the site's zone: Temporal follows its daylight saving (docs/decisions.md,
  // "Schedules in the customer's time"), and next_run_at follows Temporal's rule (src/sites/cadence.ts).
  return {
    calendars: [
      {
        hour: cadence.hour,
        minute: cadence.minute,
        ...(cadence.dayOfWeek !== undefined ? { dayOfWeek: dayName(cadence.dayOfWeek) } : {}),
        ...(cadence.dayOfMonth !== undefined ? { dayOfMonth: cadence.dayOfMonth } : {}),
      },
    ],
    timezone: cadence.timeZone,
  };
}

const DAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const;

function dayName(day: number): (typeof DAYS)[number] {
  return DAYS[day];
}

/** The API's part: the sites' schedules, and a reconciler applying those a crash, an outage or the admin CLI left owed. */
export function startSiteSchedules(
  client: Client,
  db: Db,
  config: Config,
  log?: (message: string, err?: unknown) => void,
): { schedules: TemporalSiteSchedules; stop(): Promise<void> } {
  const schedules = new TemporalSiteSchedules(client, config.taskQueue);
  const reconciler = runSiteScheduleReconciler({
    db,
    schedules,
    overrideMs: config.siteScheduleOverrideMs,
    intervalMs: config.auditReconcileIntervalMs,
    log,
  });
  return { schedules, stop: () => reconciler.stop() };
}

/**
 * The worker's part: a scheduled site run starts its audit through the trigger path of POST
 * /audits, which starts the AuditWorkflow with a client of its own (the worker's connection is
 * a NativeConnection, not a client). Close it when the worker stops.
 */
export async function connectRunScheduler(
  address: string,
  config: Config,
): Promise<{ scheduler: TemporalAuditScheduler; client: Client; close(): Promise<void> }> {
  const temporal = await connectClient(address, config.temporalNamespace, config.temporalSecurity);
  const scheduler = new TemporalAuditScheduler(temporal.client, temporal.connection, config.taskQueue);
  await scheduler.probe();
  return { scheduler, client: temporal.client, close: () => temporal.connection.close() };
}
