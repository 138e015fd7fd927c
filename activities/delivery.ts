import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import { attemptDelivery, markDeliveryFailed, type AttemptDeps } from '../src/webhooks/attempt';
import { planDeliveries, type EventDetails, type PlannedDelivery } from '../src/webhooks/planning';

/** Activities of webhook delivery: planning an event's deliveries and one signed POST each. */
export function createDeliveryActivities(deps: AttemptDeps & { db: Db; clock: Clock }) {
  return {
    async planDeliveries(input: { auditId: string; emissionKey: string; details: EventDetails }): Promise<PlannedDelivery[]> {
      return planDeliveries(deps.db, { ...input, now: deps.clock.now() });
    },
    async attemptDelivery(input: { deliveryId: string; attempt: number; trigger: 'automatic' | 'manual'; nextDelayMs: number | null }) {
      return attemptDelivery(deps, input);
    },
    async markDeliveryFailed(input: { deliveryId: string }): Promise<void> {
      await markDeliveryFailed(deps.db, input.deliveryId);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;
