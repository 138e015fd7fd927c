import type { AuditRow } from './repository';
import { claimDueStarts, refundUnstarted, releaseClaim, type DueStart } from './pending-starts';
import { startAuditWorkflow, type StartOutcome, type WorkflowStartDeps } from './workflow-start';

export interface ReconcilerDeps extends WorkflowStartDeps {
  /** A start still impossible after this long is refunded (AUDIT_START_GIVE_UP_MS). */
  giveUpMs: number;
}

export type ReconcileResult = Record<StartOutcome, number>;

const BATCH = 50;

/**
 * One pass over the owed workflow starts (README "Reliability"): starts those a crash or a Temporal
 * outage left behind, and refunds those that can never start (refused by Temporal, or still
 * impossible after the give-up age). While Temporal is known to be down only the give-up runs.
 */
export async function reconcilePendingStarts(deps: ReconcilerDeps): Promise<ReconcileResult> {
  const result: ReconcileResult = { started: 0, refunded: 0, postponed: 0 };
  const due = await claimDueStarts(deps.db, {
    limit: BATCH,
    giveUpMs: deps.giveUpMs,
    overdueOnly: !deps.scheduler.available(),
  });
  for (const start of due) {
    // Also once a start of this pass found Temporal gone: the rest of the batch waits for it too.
    if (!deps.scheduler.available()) {
      if (!(await giveUpIfOverdue(deps, start, result))) await releaseClaim(deps.db, start);
      continue;
    }
    const audit = await deps
      .db<AuditRow>('audits')
      .where({ id: start.auditId })
      .first('id', 'workspace_id', 'mode', 'domain', 'tier', 'render', 'run_generation');
    // The owed row goes with its audit (ON DELETE CASCADE): a pruned audit owes nothing.
    if (!audit) continue;
    const outcome = await startAuditWorkflow(deps, start, audit);
    result[outcome]++;
    if (outcome === 'postponed') await giveUpIfOverdue(deps, start, result);
  }
  return result;
}

async function giveUpIfOverdue(deps: ReconcilerDeps, start: DueStart, result: ReconcileResult): Promise<boolean> {
  if (!start.overdue) return false;
  if (await refundUnstarted(deps.db, start, 'the audit engine was unavailable for too long')) result.refunded++;
  return true;
}

/** While Temporal is down, it is probed this often so its return is noticed soon. */
const DOWN_PROBE_MS = 1000;

/**
 * Runs a pass every `intervalMs`; while Temporal is down, probes it every second instead and runs
 * a pass as soon as it answers. A failed pass (e.g. the database is down) is logged and retried.
 */
export function runReconciler(
  deps: ReconcilerDeps & { intervalMs: number; log?: (message: string, err?: unknown) => void },
): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = async (): Promise<void> => {
    if (!deps.scheduler.available()) await deps.scheduler.probe();
    await reconcilePendingStarts(deps);
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(
      () => {
        running = tick()
          .catch((err) => deps.log?.('reconciling owed workflow starts failed; retrying on the next pass', err))
          .finally(schedule);
      },
      deps.scheduler.available() ? deps.intervalMs : Math.min(deps.intervalMs, DOWN_PROBE_MS),
    );
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
