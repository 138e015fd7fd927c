import { deliverySettings, type Config } from '../config';
import type { Db } from '../db/knex';
import type { Mode, Tier } from '../schemas/audit';
import { confirmStarted, refundUnstarted, releaseClaim, type PendingStart } from './pending-starts';
import { SchedulerRejectedError, SchedulerUnavailableError, type AuditScheduler } from './scheduler';
import type { AuditWorkflowInput } from '../../workflows/contracts';

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
}

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
    await deps.scheduler.start(workflowInput(audit, deps.config));
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
    delivery: deliverySettings(config),
  };
}
