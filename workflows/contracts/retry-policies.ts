// Retry policies of the workflows' activities, named for what they retry. Changing one changes how
// running workflows retry from their next activity on (not their command order).
import type { RetryPolicy } from '@temporalio/common';
import { AUDIT_FAILURE_CODES } from './audit-failures';
import { AUDIT_NOT_COMPLETED } from './report';

/**
 * The failure type of an activity whose write Postgres kept refusing (a datum, not an outage): after
 * a few attempts it is not retried (temporal/refused-datum-retries.ts), so no bad datum wedges a workflow.
 */
export const DATABASE_REFUSED_DATUM = 'database_refused_datum';

/** Short database writes (projections, planning, the delivery log's row): no limit, so they land through a database outage. */
export const DATABASE_WRITE_RETRY: RetryPolicy = {
  initialInterval: '100 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '10 seconds',
};

/** The delivery log's own steps (recording a delivery, marking it failed): no limit. */
export const DELIVERY_LOG_RETRY: RetryPolicy = { initialInterval: '200 milliseconds', maximumInterval: '10 seconds' };

/**
 * One audit attempt: a classified failure (the site's behaviour) is the workflow's to retry, per
 * AUDIT_RETRY_DELAYS_MS; a lost worker is retried here without limit.
 */
export const AUDIT_RUN_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  maximumInterval: '30 seconds',
  nonRetryableErrorTypes: [...AUDIT_FAILURE_CODES],
};

/**
 * The browser stage: a lost browser worker or a crash is retried without limit; the activity's
 * schedule-to-close bound (BROWSER_STAGE_TIMEOUT_MS) ends the wait, and the audit completes without it.
 */
export const BROWSER_STAGE_RETRY: RetryPolicy = { initialInterval: '1 second', maximumInterval: '30 seconds' };

/** One webhook POST: a non-2xx answer is an outcome, not an error; a lost worker or database is retried without limit. */
export const DELIVERY_ATTEMPT_RETRY: RetryPolicy = { initialInterval: '1 second', maximumInterval: '30 seconds' };

/** A PDF render: a few attempts; an audit without a completed result is not retried. */
export const REPORT_RENDER_RETRY: RetryPolicy = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumAttempts: 5,
  nonRetryableErrorTypes: [AUDIT_NOT_COMPLETED],
};

/** The daily retention job: a few attempts; tomorrow's run picks up what is left. */
export const PRUNE_RETRY: RetryPolicy = { initialInterval: '10 seconds', maximumAttempts: 5 };
