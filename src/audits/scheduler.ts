import type { AuditWorkflowInput } from './workflow-input';

/** Starts the orchestration of an audit; the API depends on this, not on Temporal directly. */
export interface AuditScheduler {
  /** Idempotent per audit id. Throws SchedulerUnavailableError when the engine cannot be reached. */
  start(input: AuditWorkflowInput): Promise<void>;
}

export class SchedulerUnavailableError extends Error {}
