import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import { attemptDelivery, markDeliveryFailed, type AttemptDeps } from '../src/webhooks/attempt';
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
    async attemptDelivery(input: {
      deliveryId: string;
      attempt: number;
      trigger: 'automatic' | 'manual';
      nextDelayMs: number | null;
    }) {
      // Once the POST has gone out, its outcome is stored through any database outage rather than
      // retrying the activity and sending the delivery again.
      const end = deliveryDuration.startTimer();
      const outcome = await attemptDelivery(deps, input, untilDatabaseAnswers);
      const label = outcome.delivered ? 'delivered' : outcome.stop ? 'dropped' : 'failed';
      deliveryAttempts.inc({ outcome: label });
      end({ outcome: label });
      return outcome;
    },
    async markDeliveryFailed(input: { deliveryId: string }): Promise<void> {
      await markDeliveryFailed(deps.db, input.deliveryId);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
