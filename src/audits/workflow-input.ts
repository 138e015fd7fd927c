import type { Mode, Tier } from '../schemas/audit';

/** Arguments of AuditWorkflow; pure types, shared by the API (starter) and the workflow bundle. */
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
}

export type AuditStatus = 'queued' | 'running' | 'completed' | 'failed';
