import { hasIdShape, randomBase62 } from '../ids';
import { sendAttempt } from './attempt';
import { recordAttempt } from './attempt-log';
import { webhookTestBody } from './events';
import { deliveryAttempts, findDelivery } from './repository';
import { requireWebhook, type Actor, type WebhookServiceDeps } from './service';
import { signingSecrets } from './signing';

/** The answer to a test event: how its one attempt went. */
export interface TestEventOutcome {
  deliveryId: string;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  /** null when acknowledged; else the error class (timeout, dns, connect, tls, blocked_address, non_2xx, other). */
  error: string | null;
  errorMessage: string | null;
}

/**
 * POST /webhooks/{webhook_id}/test (docs/decisions.md, "Webhook lifecycle"): one signed webhook.test
 * `{type, webhook_id, sent_at}` sent at once, whatever the webhook subscribes to and also when it is
 * disabled (to check an endpoint before enabling it again), signed as every delivery is (with both
 * secrets during a rotation). Logged as a delivery of one attempt; never retried, so it has no
 * workflow. Its outcome counts towards the failing streak like any attempt's. Test-mode webhooks
 * send it to the mock receiver (SPEC, test mode rule 2).
 */
export async function sendTestEvent(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
): Promise<TestEventOutcome> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  const deliveryId = `dlv_${randomBase62(24)}`;
  const now = deps.clock.now();
  const payload = webhookTestBody({ webhookId: webhook.id, sentAt: now });
  const record = await sendAttempt(
    {
      clock: deps.clock,
      timeoutMs: deps.sending.timeoutMs,
      allow: deps.outboundAllow,
      testMockUrl: deps.sending.testMockUrl(),
    },
    {
      deliveryId,
      mode: webhook.mode,
      url: webhook.url,
      secrets: signingSecrets(webhook, now),
      event: 'webhook.test',
      auditId: null,
      payload,
    },
    { attempt: 1, trigger: 'manual', nextDelayMs: null },
  );
  const delivered = record.errorClass === null;
  await deps.db('deliveries').insert({
    id: deliveryId,
    webhook_id: webhook.id,
    workspace_id: webhook.workspace_id,
    mode: webhook.mode,
    audit_id: null,
    event: 'webhook.test',
    url: webhook.url,
    payload,
    // Never retried: failed at once unless this one attempt got through.
    state: delivered ? 'delivered' : 'failed',
    attempts: 0,
    created_at: now,
  });
  await recordAttempt(deps.db, record, deps.watch);
  return {
    deliveryId,
    delivered,
    statusCode: record.statusCode,
    durationMs: record.durationMs,
    error: record.errorClass,
    errorMessage: record.errorMessage,
  };
}

/**
 * The outcome of a test event sent earlier to this webhook, read back from the delivery log (the
 * dashboard shows it after the redirect that follows its POST); undefined for any other delivery.
 */
export async function testEventOutcome(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  deliveryId: string,
): Promise<TestEventOutcome | undefined> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  const delivery = hasIdShape('delivery', deliveryId) ? await findDelivery(deps.db, webhook.id, deliveryId) : undefined;
  if (!delivery || delivery.event !== 'webhook.test') return undefined;
  const [attempt] = await deliveryAttempts(deps.db, delivery.id);
  if (!attempt) return undefined;
  return {
    deliveryId: delivery.id,
    delivered: delivery.state === 'delivered',
    statusCode: attempt.status_code,
    durationMs: attempt.duration_ms,
    error: attempt.error_class,
    errorMessage: attempt.error_message,
  };
}
