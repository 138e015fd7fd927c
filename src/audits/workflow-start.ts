import { deliverySettings, type Config } from '../config';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';
import { confirmStarted, oweStartAgain, refundUnstarted, releaseClaim, type PendingStart } from './pending-starts';
import { SchedulerRejectedError, SchedulerUnavailableError, type AuditScheduler } from './scheduler';
import type { AuditWorkflowInput } from '../../workflows/contracts';
import type { RenderMode } from '../schemas/api-audits';

export interface WorkflowStartDeps {
  db: Db;
  config: Config;
  scheduler: AuditScheduler;
}

/** What a workflow is started from: the committed audit row. */
export interface StartableAudit {
  id: string;
  workspace_id: string;
  mode: Mode;
  domain: string;
  tier: Tier;
  /** `all`: the crawl renders and checks every HTML page (audits.render); absent or `sample`: the sample. */
  render?: RenderMode;
  /** The trigger count the run is started for (audits.run_generation). */
  run_generation: number;
}

/** Restarts after a later trigger's start lost the race; each one is caused by another trigger. */
const MOST_RESTARTS = 10;

/** started: the workflow runs; postponed: the engine is unavailable, the start stays owed; refunded: refused for good. */
export type StartOutcome = 'started' | 'postponed' | 'refunded';

/**
 * Makes an owed workflow start (workflow id = audit id, so repeating it is harmless) and settles
 * the outbox row. Called by the trigger after its commit and by the reconciler; never inside a
 * transaction, so no connection or lock is held while Temporal is waited for.
 */
export async function startAuditWorkflow(
  deps: WorkflowStartDeps,
  start: PendingStart,
  audit: StartableAudit,
): Promise<StartOutcome> {
  try {
    await startCurrentRun(deps, audit);
  } catch (err) {
    if (err instanceof SchedulerUnavailableError) {
      await releaseClaim(deps.db, start);
      return 'postponed';
    }
    if (err instanceof SchedulerRejectedError) {
      await refundUnstarted(deps.db, start, 'the audit engine refused it');
      return 'refunded';
    }
    throw err;
  }
  await confirmStarted(deps.db, start);
  return 'started';
}

/**
 * Starts the run of `audit`'s generation. A test audit's start replaces a running run, so starts of
 * concurrent re-triggers may reach Temporal in another order than their commits: when a later trigger
 * has committed meanwhile, the run just started may be an older generation that replaced the current
 * one, and it is replaced in turn by a run of the current generation. The last start to reach Temporal
 * is therefore always of the audit's current generation, the only one whose writes count.
 */
async function startCurrentRun(deps: WorkflowStartDeps, audit: StartableAudit): Promise<void> {
  let generation = audit.run_generation;
  for (let restarts = 0; ; restarts++) {
    try {
      await deps.scheduler.start(workflowInput({ ...audit, run_generation: generation }, deps.config));
    } catch (err) {
      // The later trigger's start, which this one replaced, was confirmed: owe it again.
      if (restarts > 0) await oweStartAgain(deps.db, audit.id);
      throw err;
    }
    if (audit.mode !== 'test') return;
    const row = await deps
      .db('audits')
      .where({ id: audit.id })
      .first<{ run_generation: number } | undefined>('run_generation');
    if (!row || row.run_generation === generation || restarts >= MOST_RESTARTS) return;
    generation = row.run_generation;
  }
}

function workflowInput(audit: StartableAudit, config: Config): AuditWorkflowInput {
  return {
    auditId: audit.id,
    workspaceId: audit.workspace_id,
    mode: audit.mode,
    domain: audit.domain,
    tier: audit.tier,
    retryDelaysMs: config.auditRetryDelaysMs,
    heartbeatTimeoutMs: config.auditHeartbeatTimeoutMs,
    reportTaskQueue: config.reportTaskQueue,
    ...(config.browserStage ? { browserStage: config.browserStage } : {}),
    ...(audit.render === 'all' ? { render: 'all' as const } : {}),
    delivery: deliverySettings(config),
    generation: audit.run_generation,
    crawl: { pageBudget: config.pageBudgets[audit.tier], stepPages: config.crawl.stepPages },
  };
}
