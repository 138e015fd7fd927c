import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { hasIdShape } from '../../ids';
import { presentDelivery, presentRedeliveryRequested } from '../../presenters/deliveries';
import { presentPage } from '../../presenters/page';
import { presentCreatedWebhook, presentWebhook } from '../../presenters/webhooks';
import { createWebhookBodySchema, pageQuerySchema, type CreateWebhookBody, type PageQuery } from '../../schemas/api';
import { DEFAULT_WEBHOOK_EVENTS } from '../../webhooks/events';
import {
  deleteWebhook,
  findDelivery,
  findWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  newWebhookId,
  type WebhookRow,
} from '../../webhooks/repository';
import { redeliveryOf, type DeliveryControl } from '../../webhooks/redelivery';
import { generateWebhookSecret } from '../../webhooks/signing';
import { checkWebhookUrl } from '../../outbound/url-policy';
import { ApiError } from '../../errors';
import { caller, type ApiContext, type ApiState } from '../context';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { readJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator, queryValidator } from '../validation';

const validateCreate = bodyValidator<CreateWebhookBody>(createWebhookBodySchema);
const validatePage = queryValidator<PageQuery>(pageQuerySchema);

export interface WebhookRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  deliveries: DeliveryControl;
}

/** Webhooks, their delivery log and manual redelivery (README, Webhooks). Pro and up. */
export function webhookRoutes(deps: WebhookRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const allow = deps.config.outboundAllow;

  router.post('/webhooks', tierGate('webhooks'), async (ctx) => {
    const body = validateCreate(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const { scope } = caller(ctx);
    const url = await checkWebhookUrl('url', body.url, allow);
    const row = {
      id: newWebhookId(),
      workspace_id: scope.workspaceId,
      mode: scope.mode,
      url,
      events: body.events ?? [...DEFAULT_WEBHOOK_EVENTS],
      secret: body.secret ?? generateWebhookSecret(),
      created_at: deps.clock.now(),
    };
    await insertWebhook(deps.db, row);
    ctx.status = 201;
    ctx.body = presentCreatedWebhook(row);
  });

  router.get('/webhooks', tierGate('webhooks'), async (ctx) => {
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'webhook') : undefined;
    ctx.body = presentPage(
      await listWebhooks(deps.db, caller(ctx).scope, { limit: page.limit ?? 50, after }),
      presentWebhook,
      encodeCursor,
    );
  });

  router.delete('/webhooks/:webhookId', tierGate('webhooks'), async (ctx) => {
    const webhookId = ctx.params.webhookId;
    if (
      !hasIdShape('webhook', webhookId) ||
      !(await deleteWebhook(deps.db, caller(ctx).scope, webhookId, deps.clock.now()))
    )
      throw webhookNotFound(webhookId);
    ctx.status = 204;
  });

  router.get('/webhooks/:webhookId/deliveries', tierGate('webhooks'), async (ctx) => {
    const webhook = await requireWebhook(ctx, deps.db);
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'delivery') : undefined;
    const { rows, attempts, hasMore } = await listDeliveries(deps.db, webhook.id, { limit: page.limit ?? 50, after });
    ctx.body = presentPage(
      { rows, hasMore },
      (row) => presentDelivery(row, attempts, deps.config.redeliveryWindowMs),
      encodeCursor,
    );
  });

  router.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', tierGate('webhooks'), async (ctx) => {
    const webhook = await requireWebhook(ctx, deps.db);
    const deliveryId = ctx.params.deliveryId;
    const delivery = hasIdShape('delivery', deliveryId)
      ? await findDelivery(deps.db, webhook.id, deliveryId)
      : undefined;
    if (!delivery)
      throw new ApiError(
        'delivery_not_found',
        `no delivery ${hasIdShape('delivery', deliveryId) ? deliveryId : 'with this id'} for webhook ${webhook.id}`,
      );
    const windowEnd = new Date(delivery.created_at).getTime() + deps.config.redeliveryWindowMs;
    const expired = () =>
      new ApiError(
        'redelivery_window_expired',
        `manual redelivery was possible until ${new Date(windowEnd).toISOString()}; fetch the audit with GET /audits/${delivery.audit_id} instead`,
      );
    if (deps.clock.now().getTime() >= windowEnd) throw expired();
    if ((await deps.deliveries.redeliver(redeliveryOf(delivery))) === 'closed') throw expired();
    ctx.status = 202;
    ctx.body = presentRedeliveryRequested(delivery);
  });

  return router;
}

async function requireWebhook(ctx: ApiContext, db: Db): Promise<WebhookRow> {
  const webhookId = ctx.params.webhookId;
  const webhook = hasIdShape('webhook', webhookId) ? await findWebhook(db, caller(ctx).scope, webhookId) : undefined;
  if (!webhook) throw webhookNotFound(webhookId);
  return webhook;
}

function webhookNotFound(webhookId: string): ApiError {
  // Ids of another shape are not echoed: they may hold anything.
  return new ApiError(
    'webhook_not_found',
    `no webhook ${hasIdShape('webhook', webhookId) ? webhookId : 'with this id'} in this workspace`,
  );
}
