import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import { attemptDelivery, type AttemptDeps, type AttemptOutcome } from '../src/webhooks/attempt';
import { markDeliveryFailed, recordAttempt } from '../src/webhooks/attempt-log';
import { UNWATCHED } from '../src/webhooks/failing-streak';
import {
  announceWebhookDisabled,
  disableWebhook,
  warnWebhookFailing,
  webhookStreak,
  type HealthDeps,
} from '../src/webhooks/health';
import { recordFirstAttempts, sendFirstAttempts } from '../src/webhooks/first-attempts';
import { planDeliveries, recordDelivery } from '../src/webhooks/planning';
import { deliveryProgress } from '../src/webhooks/repository';
import type {
  AttemptRecord,
  DeliveryProgress,
  DeliveryRecord,
  EventDetails,
  FirstAttempt,
  PlannedDelivery,
  RecordedDelivery,
  WebhookStreak,
} from '../workflows/contracts';
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
    /**
     * Attempt 1 of some of an event's deliveries, made by the emitting workflow (a local activity).
     * Acknowledged ones are logged and done; the others each continue in a DeliveryWorkflow.
     */
    async sendFirstAttempts(input: {
      auditId: string;
      details: EventDetails;
      deliveries: PlannedDelivery[];
      nextDelayMs: number | null;
    }): Promise<{ unrecorded: FirstAttempt[]; retrying: FirstAttempt[] }> {
      const sent = await sendFirstAttempts(deps, input);
      for (const { attempt } of sent.attempts) observeAttempt(attempt.errorClass === null, attempt.durationMs);
      const delivered = sent.attempts.filter((a) => a.attempt.errorClass === null);
      return {
        unrecorded: sent.logged ? [] : delivered,
        retrying: sent.attempts.filter((a) => a.attempt.errorClass !== null),
      };
    },
    /**
     * Logs deliveries with the first attempt already made, through any database outage: a failed
     * one as its DeliveryWorkflow's first step, acknowledged ones whose log write had failed.
     */
    async recordFirstAttempts(input: { auditId: string; details: EventDetails; attempts: FirstAttempt[] }) {
      return untilDatabaseAnswers(() => recordFirstAttempts(deps.db, input, deps.watch ?? UNWATCHED));
    },
    /** Where a logged delivery stands, for a DeliveryWorkflow started by a manual redelivery. */
    async deliveryProgress(input: { deliveryId: string }): Promise<DeliveryProgress | null> {
      return deliveryProgress(deps.db, input.deliveryId);
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
      await untilDatabaseAnswers(() => recordAttempt(deps.db, record, deps.watch ?? UNWATCHED));
    },
    async markDeliveryFailed(input: { deliveryId: string }): Promise<void> {
      await markDeliveryFailed(deps.db, input.deliveryId);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

/** Activities of WebhookHealthWorkflow (src/webhooks/health.ts): each waits out a database outage. */
export function createWebhookHealthActivities(deps: HealthDeps) {
  return {
    async webhookStreak(input: { webhookId: string }): Promise<WebhookStreak> {
      return untilDatabaseAnswers(() => webhookStreak(deps, input.webhookId));
    },
    async warnWebhookFailing(input: { webhookId: string; failingSince: string; disableAfterMs: number }) {
      await untilDatabaseAnswers(() => warnWebhookFailing(deps, input));
    },
    async disableWebhook(input: { webhookId: string; failingSince: string }): Promise<{ disabledAt: string } | null> {
      return untilDatabaseAnswers(() => disableWebhook(deps, input));
    },
    async announceWebhookDisabled(input: { webhookId: string; disabledAt: string }): Promise<RecordedDelivery[]> {
      return untilDatabaseAnswers(() => announceWebhookDisabled(deps, input));
    },
  };
}

export type WebhookHealthActivities = ReturnType<typeof createWebhookHealthActivities>;

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

/** A first attempt made in a batch, counted and timed by its POST. */
function observeAttempt(delivered: boolean, durationMs: number): void {
  const outcome = delivered ? 'delivered' : 'failed';
  deliveryAttempts.inc({ outcome });
  deliveryDuration.observe({ outcome }, durationMs / 1000);
}
