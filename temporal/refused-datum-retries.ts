import { ApplicationFailure, Context, log } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { isRefusedDatum } from '../src/db/refused-datum';
import { DATABASE_REFUSED_DATUM } from '../workflows/contracts';

/** Attempts an activity gets when Postgres refuses what it writes: a race (a duplicate key) may pass on a retry. */
export const REFUSED_DATUM_ATTEMPTS = 3;

/**
 * Bounds the retries of every activity, local ones included, on an error that Postgres gives for the
 * statement itself (src/db/refused-datum.ts): no bad datum can wedge a workflow behind an activity
 * retried for ever (docs/architecture.md, "Failures"). Outages are not bounded: they are waited out.
 */
export const boundRefusedDatumRetries: ActivityInterceptorsFactory = () => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        if (!isRefusedDatum(err)) throw err;
        const { attempt, activityType, workflowExecution } = Context.current().info;
        if (attempt < REFUSED_DATUM_ATTEMPTS) throw err;
        const code = (err as { code: string }).code;
        log.error('the database refused an activity write again: not retried', {
          activityType,
          workflowId: workflowExecution?.workflowId,
          sqlstate: code,
          error: String((err as Error).message),
        });
        throw ApplicationFailure.create({
          message: `the database refused the write (SQLSTATE ${code})`,
          type: DATABASE_REFUSED_DATUM,
          nonRetryable: true,
        });
      }
    },
  },
});
