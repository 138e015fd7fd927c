import type { AuditWorkflowInput } from '../../workflows/contracts';

/** Starts the orchestration of an audit; the API depends on this, not on Temporal directly. */
export interface AuditScheduler {
  /**
   * Idempotent per audit id. Throws SchedulerUnavailableError when the engine cannot be reached (or
   * is known to be down: then at once, without trying), SchedulerRejectedError when the engine
   * refuses this start for good.
   */
  start(input: AuditWorkflowInput): Promise<void>;
  /** False while the engine is known to be down: triggers are refused before anything is stored. */
  available(): boolean;
  /** Asks the engine now; true (and available again) when it answered. */
  probe(): Promise<boolean>;
}

export class SchedulerUnavailableError extends Error {}

export class SchedulerRejectedError extends Error {}
