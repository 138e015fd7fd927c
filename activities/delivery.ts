import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import {
  attemptDelivery,
  markDeliveryFailed,
  recordAttempt,
  type AttemptDeps,
  type AttemptOutcome,
  type AttemptRecord,
} from '../src/webhooks/attempt';
import { planDeliveries, recordDelivery, type PlannedDelivery } from '../src/webhooks/planning';
import type { DeliveryRecord, EventDetails } from '../workflows/contracts';
import { untilDatabaseAnswers } from './database-outage';
import { deliveryAttempts, deliveryDuration } from '../src/observability/metrics';

/** Activities of webhook delivery: planning an event's deliveries, recording each, and one signed POST each. */
export function createDeliveryActivities(deps: AttemptDeps & { db: Db; clock: Clock }) {
  return {
    async planDeliveries(input: {
      auditId: string;
      emissionKey: string;
      details: EventDetails;
    }): Promise<PlannedDelivery[]> {
      return planDeliveries(deps.db, { ...input, now: deps.clock.now() });
    },
    async recordDelivery(input: DeliveryRecord & { deliveryId: string; eventAt: string }): Promise<boolean> {
      return recordDelivery(deps.db, input);
    },
    async attemptDelivery(input: AttemptInput) {
      // Once the POST has gone out, its outcome is stored through any database outage rather than
      // retrying the activity and sending the delivery again.
      return measured(() => attemptDelivery(deps, input, untilDatabaseAnswers));
    },
    /**
     * The same attempt as a local activity (a delivery's first): it does not wait out a database
     * outage. Before the POST, a database error fails it (the workflow makes the attempt as an
     * activity); after the POST, the outcome comes back `unrecorded` for recordDeliveryAttempt.
     */
    async attemptDeliveryOnce(input: AttemptInput) {
      return measured(() => attemptDelivery(deps, input));
    },
    /** Stores an attempt whose POST already went out, through any database outage. */
    async recordDeliveryAttempt(record: AttemptRecord): Promise<void> {
      await untilDatabaseAnswers(() => recordAttempt(deps.db, record));
    },
    async markDeliveryFailed(input: { deliveryId: string }): Promise<void> {
      await markDeliveryFailed(deps.db, input.deliveryId);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

interface AttemptInput {
  deliveryId: string;
  attempt: number;
  trigger: 'automatic' | 'manual';
  nextDelayMs: number | null;
}

/** An attempt counted and timed in the metrics by its outcome. */
async function measured(attempt: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  const end = deliveryDuration.startTimer();
  const outcome = await attempt();
  const label = outcome.delivered ? 'delivered' : outcome.stop ? 'dropped' : 'failed';
  deliveryAttempts.inc({ outcome: label });
  end({ outcome: label });
  return outcome;
}
