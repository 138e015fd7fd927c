import type { Clock } from '../src/clock';
import type { Config } from '../src/config';
import type { Db } from '../src/db/knex';
import type { NotificationOccasion, PlannedNotification } from '../workflows/contracts';
import { recordNotification } from '../src/notifications/log';
import { planNotifications } from '../src/notifications/planning';
import { attemptNotification, type NotificationSendDeps } from '../src/notifications/send';
import { untilDatabaseAnswers } from './database-outage';

/**
 * Activities of notification channels (src/notifications): planning an occasion's notifications (a
 * local activity of the workflow that notifies), logging one, and one attempt to send it. Messages
 * link to the dashboard at PUBLIC_BASE_URL, else at this machine's API port; each POST is bounded by
 * DELIVERY_TIMEOUT_MS and goes through the outbound policy (OUTBOUND_ALLOW_CIDRS).
 */
export function createNotificationActivities(deps: {
  db: Db;
  clock: Clock;
  config: Config;
  mailer: NotificationSendDeps['mailer'];
  testMockUrl: string;
}) {
  const sending: NotificationSendDeps = {
    ...deps,
    timeoutMs: deps.config.deliveryTimeoutMs,
    allow: deps.config.outboundAllow,
  };
  const dashboardUrl = deps.config.publicBaseUrl ?? `http://127.0.0.1:${deps.config.port}`;
  return {
    async planNotifications(occasion: NotificationOccasion): Promise<PlannedNotification[]> {
      return planNotifications(deps.db, occasion, deps.clock.now());
    },
    async recordNotification(planned: PlannedNotification): Promise<boolean> {
      return recordNotification({ db: deps.db, dashboardUrl }, planned);
    },
    async attemptNotification(input: { notificationId: string; attempt: number; last: boolean }) {
      // Once the message has gone out, its outcome is stored through any database outage rather than
      // failing the activity and sending it again.
      return attemptNotification(sending, input, untilDatabaseAnswers);
    },
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;
