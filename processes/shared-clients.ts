import type { Clock } from '../src/clock';
import { deliverySettings, type Config } from '../src/config';
import type { Db } from '../src/db/knex';
import { createMailer } from '../src/mail/mailer';
import type { TemporalClientBundle } from '../temporal/connection';
import { TemporalWebhookWatch } from '../temporal/webhook-health-control';

/** What the API and every worker are started with. */
export interface CommonOptions {
  config: Config;
  db: Db;
  clock: Clock;
  temporalAddress: string;
  log?: (message: string, err?: unknown) => void;
}

/** Where failing webhooks are reported: their WebhookHealthWorkflow (WEBHOOK_DISABLE_AFTER_MS). */
export function webhookWatch(client: TemporalClientBundle['client'], config: Config): TemporalWebhookWatch {
  return new TemporalWebhookWatch(client, config.taskQueue, {
    disableAfterMs: config.webhookDisableAfterMs,
    delivery: deliverySettings(config),
  });
}

/** The mailer of MAIL_TRANSPORT (the mail_outbox table by default): invitations, webhook notices, notification e-mails. */
export function mailerOf(input: { config: Config; db: Db; clock: Clock }) {
  return createMailer({
    transport: input.config.mailTransport,
    from: input.config.mailFrom,
    db: input.db,
    clock: input.clock,
  });
}
