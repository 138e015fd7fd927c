import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentDelivery, presentRedeliveryRequested } from '../../presenters/deliveries';
import { presentPage } from '../../presenters/page';
import {
  presentCreatedWebhook,
  presentRotatedSecret,
  presentTestOutcome,
  presentWebhook,
} from '../../presenters/webhooks';
import {
  createWebhookBodySchema,
  listDeliveriesQuerySchema,
  pageQuerySchema,
  patchWebhookBodySchema,
  recoverBodySchema,
  rotateSecretBodySchema,
  type CreateWebhookBody,
  type ListDeliveriesQuery,
  type PageQuery,
  type PatchWebhookBody,
  type RecoverBody,
  type RotateSecretBody,
} from '../../schemas/api';
import type { DeliveryControl } from '../../webhooks/redelivery';
import type { FailureWatch } from '../../webhooks/failing-streak';
import {
  createWebhook,
  listWorkspaceWebhooks,
  removeWebhook,
  rotateSecret,
  updateWebhook,
  webhookServiceDeps,
  type Actor,
  type WebhookServiceDeps,
} from '../../webhooks/service';
import { sendTestEvent } from '../../webhooks/test-event';
import { deliveryFilterOf, recoverFailed, redeliver, webhookDeliveries } from '../../webhooks/recovery';
import { caller, type ApiContext, type ApiState } from '../context';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { readJsonBody, readOptionalJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator, queryValidator } from '../validation';

const validateCreate = bodyValidator<CreateWebhookBody>(createWebhookBodySchema);
const validatePatch = bodyValidator<PatchWebhookBody>(patchWebhookBodySchema);
const validateRotate = bodyValidator<RotateSecretBody>(rotateSecretBodySchema);
const validateRecover = bodyValidator<RecoverBody>(recoverBodySchema);
const validateEmpty = bodyValidator<Record<string, never>>({ type: 'object', additionalProperties: false });
const validatePage = queryValidator<PageQuery>(pageQuerySchema);
const validateDeliveriesQuery = queryValidator<ListDeliveriesQuery>(listDeliveriesQuerySchema);

export interface WebhookRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  deliveries: DeliveryControl;
  /** Where a failing webhook is reported (a failed test event starts a streak like any attempt); nowhere when unset. */
  watch?: FailureWatch;
  /** Public base URL of this API: test-mode test events go to its mock receiver unless TEST_WEBHOOK_MOCK_URL says otherwise. */
  baseUrl: () => string;
}

/**
 * Webhooks, their delivery log, test events, secret rotation, manual redelivery and recovery
 * (README, Webhooks). Pro and up. The rules live in src/webhooks/service.ts and its neighbours,
 * shared with the dashboard; this is their HTTP face.
 */
export function webhookRoutes(deps: WebhookRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const service = webhookServiceDeps(deps);
  const now = () => deps.clock.now();

  router.post('/webhooks', tierGate('webhooks'), async (ctx) => {
    const body = validateCreate(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const row = await createWebhook(service, actor(ctx), body);
    ctx.status = 201;
    ctx.body = presentCreatedWebhook(row, now());
  });

  router.get('/webhooks', tierGate('webhooks'), async (ctx) => {
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'webhook') : undefined;
    const webhooks = await listWorkspaceWebhooks(service, actor(ctx), { limit: page.limit ?? 50, after });
    ctx.body = presentPage(webhooks, (row) => presentWebhook(row, now()), encodeCursor);
  });

  router.patch('/webhooks/:webhookId', tierGate('webhooks'), async (ctx) => {
    const body = validatePatch(await readJsonBody(ctx, deps.config.maxBodyBytes));
    ctx.body = presentWebhook(await updateWebhook(service, actor(ctx), ctx.params.webhookId, body), now());
  });

  router.delete('/webhooks/:webhookId', tierGate('webhooks'), async (ctx) => {
    await removeWebhook(service, actor(ctx), ctx.params.webhookId);
    ctx.status = 204;
  });

  router.post('/webhooks/:webhookId/test', tierGate('webhooks'), async (ctx) => {
    // No fields: a body, if any, must be an empty object.
    validateEmpty(await readOptionalJsonBody(ctx, deps.config.maxBodyBytes));
    ctx.body = presentTestOutcome(await sendTestEvent(service, actor(ctx), ctx.params.webhookId));
  });

  router.post('/webhooks/:webhookId/rotate-secret', tierGate('webhooks'), async (ctx) => {
    const body = validateRotate(await readOptionalJsonBody(ctx, deps.config.maxBodyBytes));
    const rotated = await rotateSecret(service, actor(ctx), ctx.params.webhookId, { graceSeconds: body.grace_seconds });
    ctx.body = presentRotatedSecret({ webhookId: rotated.webhook.id, ...rotated });
  });

  deliveryLogRoutes(router, service, deps);
  return router;
}

/** The delivery log, manual redelivery and recovery. */
function deliveryLogRoutes(router: Router<ApiState>, service: WebhookServiceDeps, deps: WebhookRouteDeps): void {
  router.get('/webhooks/:webhookId/deliveries', tierGate('webhooks'), async (ctx) => {
    const query = validateDeliveriesQuery({ ...ctx.query });
    const after = query.cursor ? decodeCursor(query.cursor, 'delivery') : undefined;
    const { rows, attempts, hasMore } = await webhookDeliveries(
      service,
      actor(ctx),
      ctx.params.webhookId,
      { limit: query.limit ?? 50, after },
      deliveryFilterOf(query),
    );
    ctx.body = presentPage(
      { rows, hasMore },
      (row) => presentDelivery(row, attempts, deps.config.redeliveryWindowMs),
      encodeCursor,
    );
  });

  router.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', tierGate('webhooks'), async (ctx) => {
    const delivery = await redeliver(service, actor(ctx), ctx.params.webhookId, ctx.params.deliveryId);
    ctx.status = 202;
    ctx.body = presentRedeliveryRequested(delivery);
  });

  router.post('/webhooks/:webhookId/recover', tierGate('webhooks'), async (ctx) => {
    const body = validateRecover(await readJsonBody(ctx, deps.config.maxBodyBytes));
    ctx.status = 202;
    ctx.body = await recoverFailed(service, actor(ctx), ctx.params.webhookId, new Date(body.since));
  });
}

function actor(ctx: ApiContext): Actor {
  const { scope, usage } = caller(ctx);
  return { scope, usage };
}
