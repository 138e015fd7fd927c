import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import type { Mailer } from '../mail/mailer';
import { DISABLED_FOR_FAILURES, type RecordedDelivery, type WebhookStreak } from '../../workflows/contracts';
import { webhookDisabledBody } from './events';
import { sendDisabledNotice, sendFailureNotice } from './notices';
import { deliveryId } from './planning';
import { subscribedWebhooks, type WebhookRow } from './repository';

/**
 * What a webhook's WebhookHealthWorkflow does (docs/architecture.md, "Webhook health"): read its
 * failing streak, warn its owners, disable it and tell the workspace. Each step checks the streak it
 * acts on is still the webhook's, so an attempt that got through in between always wins.
 */
export interface HealthDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
}

/** Attempts are made at most this long after their delivery was created (the redelivery window, and some). */
const ATTEMPTS_OUTLIVE_DELIVERIES_MS = 8 * 24 * 3600_000;

/**
 * The webhook's streak, checked against its delivery log: should an acknowledged attempt have been
 * stored after a failure that began the streak (two attempts to one webhook racing), the streak
 * starts again at the first failure after it, or is over.
 */
export async function webhookStreak(deps: HealthDeps, webhookId: string): Promise<WebhookStreak> {
  const webhook: Pick<WebhookRow, 'status' | 'deleted_at' | 'failing_since' | 'failure_notice_for'> | undefined =
    await deps
      .db('webhooks')
      .where({ id: webhookId })
      .first('status', 'deleted_at', 'failing_since', 'failure_notice_for');
  const none: WebhookStreak = { failingSince: null, elapsedMs: 0, warned: false };
  if (!webhook || webhook.deleted_at || webhook.status !== 'enabled' || !webhook.failing_since) return none;
  const recorded = new Date(webhook.failing_since);
  const failingSince = await checkedStreakStart(deps.db, webhookId, recorded);
  if (!failingSince) return none;
  return {
    failingSince: failingSince.toISOString(),
    elapsedMs: Math.max(0, deps.clock.now().getTime() - failingSince.getTime()),
    warned:
      webhook.failure_notice_for !== null && new Date(webhook.failure_notice_for).getTime() === failingSince.getTime(),
  };
}

async function checkedStreakStart(db: Db, webhookId: string, recorded: Date): Promise<Date | null> {
  const attempts = () =>
    db('delivery_attempts as a')
      .join('deliveries as d', 'd.id', 'a.delivery_id')
      .where('d.webhook_id', webhookId)
      .where('d.created_at', '>=', new Date(recorded.getTime() - ATTEMPTS_OUTLIVE_DELIVERIES_MS));
  const [{ acknowledged }] = await attempts()
    .whereNull('a.error_class')
    .where('a.started_at', '>=', recorded)
    .max({ acknowledged: 'a.started_at' });
  if (!acknowledged) return recorded;
  const [{ failed }] = await attempts()
    .whereNotNull('a.error_class')
    .where('a.started_at', '>', acknowledged)
    .min({ failed: 'a.started_at' });
  const restarted = failed ? new Date(failed) : null;
  await db('webhooks')
    .where({ id: webhookId, failing_since: recorded })
    .update({ failing_since: restarted, watched_for: restarted });
  return restarted;
}

/** Warns the owners, once per streak, that the webhook has been failing since `failingSince`. */
export async function warnWebhookFailing(
  deps: HealthDeps,
  input: { webhookId: string; failingSince: string; disableAfterMs: number },
): Promise<void> {
  const since = new Date(input.failingSince);
  const webhook = await deps
    .db('webhooks')
    .where({ id: input.webhookId, status: 'enabled', failing_since: since })
    .whereNull('deleted_at')
    .first('id', 'url', 'workspace_id', 'mode', 'failure_notice_for');
  if (!webhook || (webhook.failure_notice_for && new Date(webhook.failure_notice_for).getTime() === since.getTime()))
    return;
  await sendFailureNotice(deps, webhook, {
    failingSince: since,
    disableAt: new Date(since.getTime() + input.disableAfterMs),
  });
  await deps.db('webhooks').where({ id: input.webhookId, failing_since: since }).update({ failure_notice_for: since });
}

/**
 * Disables the webhook if the streak that began at `failingSince` is still its own. Returns when it
 * was disabled (also when this step runs again after it was), or null when it was not.
 */
export async function disableWebhook(
  deps: HealthDeps,
  input: { webhookId: string; failingSince: string },
): Promise<{ disabledAt: string } | null> {
  const now = deps.clock.now();
  const [row] = await deps
    .db('webhooks')
    .where({ id: input.webhookId, status: 'enabled', failing_since: new Date(input.failingSince) })
    .whereNull('deleted_at')
    .update({ status: 'disabled', disabled_at: now, disabled_reason: DISABLED_FOR_FAILURES })
    .returning<Array<{ disabled_at: Date }>>('disabled_at');
  if (row) return { disabledAt: new Date(row.disabled_at).toISOString() };
  const already = await deps
    .db('webhooks')
    .where({ id: input.webhookId, status: 'disabled', failing_since: new Date(input.failingSince) })
    .first('disabled_at');
  return already?.disabled_at ? { disabledAt: new Date(already.disabled_at).toISOString() } : null;
}

/**
 * Tells of a disabled webhook: its owners by e-mail, and the workspace's other enabled webhooks that
 * list webhook.disabled by a delivery each. The deliveries are recorded here (their ids derive from
 * the webhook and when it was disabled, so this step running again records nothing twice) and
 * handed back to the workflow, which starts a DeliveryWorkflow for each.
 */
export async function announceWebhookDisabled(
  deps: HealthDeps,
  input: { webhookId: string; disabledAt: string },
): Promise<RecordedDelivery[]> {
  const webhook: WebhookRow | undefined = await deps.db('webhooks').where({ id: input.webhookId }).first();
  if (!webhook || webhook.status !== 'disabled') return [];
  const disabledAt = new Date(input.disabledAt);
  const scope = { workspaceId: webhook.workspace_id, mode: webhook.mode };
  const others = (await subscribedWebhooks(deps.db, scope, 'webhook.disabled')).filter((w) => w.id !== webhook.id);
  const payload = webhookDisabledBody({
    webhookId: webhook.id,
    url: webhook.url,
    disabledAt,
    reason: webhook.disabled_reason ?? DISABLED_FOR_FAILURES,
  });
  const rows = others.map((other) => ({
    id: deliveryId(`${webhook.id}:${input.disabledAt}`, 'webhook.disabled', other.id),
    webhook_id: other.id,
    workspace_id: webhook.workspace_id,
    mode: webhook.mode,
    audit_id: null,
    event: 'webhook.disabled',
    url: other.url,
    payload,
    created_at: disabledAt,
    // Due at once: the DeliveryWorkflow goes on from the log (resume) and makes attempt 1 now.
    next_attempt_at: disabledAt,
  }));
  if (rows.length) await deps.db('deliveries').insert(rows).onConflict('id').ignore();
  await sendDisabledNotice(deps, webhook, {
    failingSince: webhook.failing_since ? new Date(webhook.failing_since) : null,
    disabledAt,
  });
  return rows.map((row) => ({
    deliveryId: row.id,
    eventAt: input.disabledAt,
    workspaceId: row.workspace_id,
    mode: row.mode,
  }));
}
