import type { Usage } from '../accounts/usage';
import { featureIncluded, requireFeature } from '../accounts/tier-gate';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import { hasIdShape } from '../ids';
import type { CidrList } from '../outbound/policy';
import { checkWebhookUrl } from '../outbound/url-policy';
import { DEFAULT_WEBHOOK_EVENTS, WEBHOOK_EVENTS, type WebhookEvent } from './events';
import { UNWATCHED, type FailureWatch } from './failing-streak';
import type { DeliveryControl } from './redelivery';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  newWebhookId,
  type Scope,
  type WebhookRow,
} from './repository';
import { generateWebhookSecret } from './signing';

/**
 * The webhook actions a customer takes, one implementation each, for every surface that offers them
 * (the API's routes, the dashboard's pages, the admin CLI): each checks the tier gate and its own
 * rules (the outbound policy for URLs, the rotation's grace period, the redelivery window) and throws
 * ApiError with the spec's codes. Request shapes are the caller's to validate (the API with ajv).
 */
export interface WebhookServiceDeps {
  db: Db;
  clock: Clock;
  /** OUTBOUND_ALLOW_CIDRS: addresses a webhook URL may resolve to despite the outbound block. */
  outboundAllow: CidrList;
  /** REDELIVERY_WINDOW_MS. */
  redeliveryWindowMs: number;
  deliveries: DeliveryControl;
  watch: FailureWatch;
  /** What a test event is sent with: the delivery time-out, and where test-mode deliveries go. */
  sending: { timeoutMs: number; testMockUrl: () => string };
}

/**
 * The service's dependencies as every surface builds them from the process's configuration: test
 * events time out as deliveries do, and test-mode ones go to TEST_WEBHOOK_MOCK_URL or this service's own
 * mock receiver (SPEC, test mode rule 2).
 */
export function webhookServiceDeps(input: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'outboundAllow' | 'redeliveryWindowMs' | 'deliveryTimeoutMs' | 'testWebhookMockUrl'>;
  deliveries: DeliveryControl;
  watch?: FailureWatch;
  baseUrl: () => string;
}): WebhookServiceDeps {
  return {
    db: input.db,
    clock: input.clock,
    outboundAllow: input.config.outboundAllow,
    redeliveryWindowMs: input.config.redeliveryWindowMs,
    deliveries: input.deliveries,
    watch: input.watch ?? UNWATCHED,
    sending: {
      timeoutMs: input.config.deliveryTimeoutMs,
      testMockUrl: () => input.config.testWebhookMockUrl ?? `${input.baseUrl()}/mock/webhooks`,
    },
  };
}

/** Who acts: the workspace and environment seen, and the account's usage (its tier). */
export interface Actor {
  scope: Scope;
  usage: Usage | undefined;
}

/** The events a webhook subscribes to: at least one, each from the catalog (src/webhooks/events.ts), each once. */
function checkEvents(events: readonly string[] | undefined): WebhookEvent[] | undefined {
  if (events === undefined) return undefined;
  const unknown = events.find((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown !== undefined)
    throw new ApiError('invalid_request', `field events must list events of ${WEBHOOK_EVENTS.join(', ')}`);
  if (events.length === 0) throw new ApiError('invalid_request', 'field events must list at least one event');
  return [...new Set(events as readonly WebhookEvent[])];
}

/** A rotation keeps the previous secret signing beside the new one for 0 to 7 days (1 day by default). */
export const ROTATION_GRACE = { defaultSeconds: 86_400, maxSeconds: 604_800 } as const;

/** Whether the account's tier includes webhooks: pages offer their controls only then. */
export function webhooksIncluded(usage: Usage | undefined): boolean {
  return featureIncluded(usage, 'webhooks');
}

export async function createWebhook(
  deps: WebhookServiceDeps,
  actor: Actor,
  input: { url: string; events?: readonly string[]; secret?: string },
): Promise<WebhookRow> {
  requireFeature(actor.usage, 'webhooks');
  const events = checkEvents(input.events) ?? [...DEFAULT_WEBHOOK_EVENTS];
  const url = await checkWebhookUrl('url', input.url, deps.outboundAllow);
  const row = {
    id: newWebhookId(),
    workspace_id: actor.scope.workspaceId,
    mode: actor.scope.mode,
    url,
    events,
    secret: input.secret ?? generateWebhookSecret(),
    created_at: deps.clock.now(),
  };
  await insertWebhook(deps.db, row);
  return (await findWebhook(deps.db, actor.scope, row.id))!;
}

export async function listWorkspaceWebhooks(
  deps: WebhookServiceDeps,
  actor: Actor,
  page: { limit: number; after?: { createdAt: string; id: string } },
) {
  requireFeature(actor.usage, 'webhooks');
  return listWebhooks(deps.db, actor.scope, page);
}

/** The webhook of this workspace and environment, or 404 webhook_not_found (ids of another shape are not looked up). */
export async function requireWebhook(deps: Pick<WebhookServiceDeps, 'db'>, actor: Actor, webhookId: string) {
  requireFeature(actor.usage, 'webhooks');
  const webhook = hasIdShape('webhook', webhookId) ? await findWebhook(deps.db, actor.scope, webhookId) : undefined;
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

export async function removeWebhook(deps: WebhookServiceDeps, actor: Actor, webhookId: string): Promise<void> {
  requireFeature(actor.usage, 'webhooks');
  if (!hasIdShape('webhook', webhookId) || !(await deleteWebhook(deps.db, actor.scope, webhookId, deps.clock.now())))
    throw webhookNotFound(webhookId);
}

/**
 * PATCH: a new URL (through the outbound policy), new events, or `status: "enabled"` for a disabled
 * webhook. Everything is checked before anything is stored. A new URL is a new endpoint, and
 * enabling is a fresh start: either ends the failing streak, its warning and its disabled state.
 */
export async function updateWebhook(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  input: { url?: string; events?: readonly string[]; status?: 'enabled' },
): Promise<WebhookRow> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  const events = checkEvents(input.events);
  const url = input.url === undefined ? undefined : await checkWebhookUrl('url', input.url, deps.outboundAllow);
  const freshStart =
    (url !== undefined && url !== webhook.url) || (input.status === 'enabled' && webhook.status !== 'enabled');
  const changes = {
    ...(url !== undefined ? { url } : {}),
    ...(events !== undefined ? { events } : {}),
    ...(freshStart ? FRESH_START : {}),
  };
  if (Object.keys(changes).length > 0) {
    await deps.db('webhooks').where({ id: webhook.id }).whereNull('deleted_at').update(changes);
  }
  return (await findWebhook(deps.db, actor.scope, webhook.id)) ?? throwNotFound(webhookId);
}

const FRESH_START = {
  status: 'enabled',
  disabled_at: null,
  disabled_reason: null,
  failing_since: null,
  watched_for: null,
  failure_notice_for: null,
} as const;

/**
 * A new generated secret, shown once in the answer. For `graceSeconds` the previous secret goes on
 * signing every delivery beside it (two signatures in each header), so receivers can switch without
 * refusing a delivery; a secret still in an earlier rotation's grace period is dropped.
 */
export async function rotateSecret(
  deps: WebhookServiceDeps,
  actor: Actor,
  webhookId: string,
  input: { graceSeconds?: number },
): Promise<{ webhook: WebhookRow; secret: string; previousSecretExpiresAt: Date | null }> {
  const webhook = await requireWebhook(deps, actor, webhookId);
  const grace = input.graceSeconds ?? ROTATION_GRACE.defaultSeconds;
  if (!Number.isInteger(grace) || grace < 0 || grace > ROTATION_GRACE.maxSeconds)
    throw new ApiError(
      'invalid_request',
      `field grace_seconds must be a whole number from 0 to ${ROTATION_GRACE.maxSeconds}`,
    );
  const secret = generateWebhookSecret();
  const previousSecretExpiresAt = grace > 0 ? new Date(deps.clock.now().getTime() + grace * 1000) : null;
  await deps
    .db('webhooks')
    .where({ id: webhook.id })
    .update({
      secret,
      previous_secret: previousSecretExpiresAt ? webhook.secret : null,
      previous_secret_expires_at: previousSecretExpiresAt,
    });
  return { webhook: { ...webhook, secret }, secret, previousSecretExpiresAt };
}

export function webhookNotFound(webhookId: string): ApiError {
  // Ids of another shape are not echoed: they may hold anything.
  return new ApiError(
    'webhook_not_found',
    `no webhook ${hasIdShape('webhook', webhookId) ? webhookId : 'with this id'} in this workspace`,
  );
}

function throwNotFound(webhookId: string): never {
  throw webhookNotFound(webhookId);
}

/** 409 webhook_disabled: nothing is sent to a disabled webhook until it is enabled. */
export function requireEnabled(webhook: WebhookRow): void {
  if (webhook.status === 'disabled') {
    throw new ApiError(
      'webhook_disabled',
      `webhook ${webhook.id} is disabled (${webhook.disabled_reason ?? 'disabled'}); enable it with PATCH /webhooks/${webhook.id} {"status": "enabled"} first`,
    );
  }
}
