import type { Mode, Tier } from '../../src/schemas/audit';

/** Arguments of AuditWorkflow, built by the API's starter from the committed audit row. */
export interface AuditWorkflowInput {
  auditId: string;
  workspaceId: string;
  mode: Mode;
  domain: string;
  tier: Tier;
  /** Delays before each automatic retry; their count is the number of retries. */
  retryDelaysMs: number[];
  /** A crawl whose worker stops heartbeating this long is restarted on another worker. */
  heartbeatTimeoutMs: number;
  /** Webhook delivery settings for the events of this audit. */
  delivery: { retryDelaysMs: number[]; redeliveryWindowMs: number; timeoutMs: number };
  /** Task queue of the report workers (PDF renders run apart from crawls). */
  reportTaskQueue: string;
  /**
   * Live audits' browser stage: the browser workers' task queue and the longest wait for it. Absent
   * when it is turned off, and in workflows started before it existed.
   */
  browserStage?: { taskQueue: string; timeoutMs: number };
  /**
   * `all`: the audit's crawl renders and checks every HTML page on the browser stage's queue
   * (`render: "all"`, team and up); absent: only application shells and the sample are rendered.
   */
  render?: 'all';
  /**
   * The audit row's run_generation this run was started for: a re-triggered test audit counts it up,
   * and only the run of the current count writes the projection. Absent in workflows started before.
   */
  generation?: number;
  /**
   * Live audits' durable crawl: the tier's page budget, pages per step (CRAWL_STEP_PAGES), steps per
   * run before continue-as-new (default 400). Absent in workflows started before it.
   */
  crawl?: { pageBudget: number; stepPages: number; stepsPerRun?: number };
}

/** Audit lifecycle as projected to Postgres and to the AuditStatus search attribute. */
export type AuditStatus = 'queued' | 'running' | 'completed' | 'failed';

/** An audit's workflow id is its audit id (`aud_…`): starting it twice joins one workflow. */
export function auditWorkflowId(auditId: string): string {
  return auditId;
}

/**
 * Which run of the audit makes a projection write: the audit's trigger count when the run was started
 * (AuditWorkflowInput.generation). Absent on workflows started before runs were counted: their writes
 * are not checked.
 */
export interface ProjectionRun {
  generation?: number;
}
