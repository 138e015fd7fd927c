import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { parseCidrList } from '../../outbound/policy';
import { createWebhookBodySchema, pageQuerySchema, type CreateWebhookBody, type PageQuery } from '../../schemas/api';
import { WEBHOOK_EVENTS } from '../../webhooks/events';
import { deleteWebhook, findDelivery, findWebhook, insertWebhook, listDeliveries, listWebhooks, newWebhookId, type WebhookRow } from '../../webhooks/repository';
import { generateWebhookSecret } from '../../webhooks/signing';
import { checkWebhookUrl } from '../../outbound/url-policy';
import { ApiError } from '../../errors';
import type { ApiContext, ApiState } from '../context';
import { decodeCursor, encodeCursor } from '../cursor';
import { readJsonBody } from '../middleware/json-body';
import { bodyValidator, queryValidator } from '../validation';
import { requireTier } from '../../accounts/tier-gate';
import { hasIdShape } from '../../ids';

const validateCreate = bodyValidator<CreateWebhookBody>(createWebhookBodySchema);
const validatePage = queryValidator<PageQuery>(pageQuerySchema);

export interface WebhookRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  deliveries: { redeliver(deliveryId: string): Promise<'signalled' | 'closed'> };
}

/** SPEC endpoints 6–8 plus the delivery log and manual redelivery (DECISIONS.md). Pro and up. */
export function webhookRoutes(deps: WebhookRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const allow = parseCidrList(deps.config.outboundAllowCidrs);
  // Every webhook endpoint needs pro or higher. Attached per route: a router.use() middleware of a
  // router nested under /v1 would also run for the routes of routers mounted after it.
  const proOnly: Middleware<ApiState> = async (ctx, next) => {
    requireTier(ctx.state.usage, 'webhooks', 'webhooks');
    await next();
  };

  router.post('/webhooks', proOnly, async (ctx) => {
    const body = validateCreate(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const scope = scopeOf(ctx);
    const url = await checkWebhookUrl('url', body.url, allow);
    const row = {
      id: newWebhookId(),
      workspace_id: scope.workspaceId,
      mode: scope.mode,
      url,
      events: body.events ?? [...WEBHOOK_EVENTS],
      secret: body.secret ?? generateWebhookSecret(),
      created_at: deps.clock.now(),
    };
    await insertWebhook(deps.db, row);
    ctx.status = 201;
    // The only response that ever shows the secret.
    ctx.body = { ...present(row), secret: row.secret };
  });

  router.get('/webhooks', proOnly, async (ctx) => {
    const page = validatePage({ ...ctx.query });
    const { rows, hasMore } = await listWebhooks(deps.db, scopeOf(ctx), { limit: page.limit ?? 50, after: page.cursor ? decodeCursor(page.cursor, 'webhook') : undefined });
    ctx.body = { data: rows.map(present), has_more: hasMore, next_cursor: hasMore ? encodeCursor(rows[rows.length - 1]) : null };
  });

  router.delete('/webhooks/:webhookId', proOnly, async (ctx) => {
    const webhookId = ctx.params.webhookId;
    if (!hasIdShape('webhook', webhookId) || !(await deleteWebhook(deps.db, scopeOf(ctx), webhookId, deps.clock.now()))) throw notFound(webhookId);
    ctx.status = 204;
  });

  router.get('/webhooks/:webhookId/deliveries', proOnly, async (ctx) => {
    const webhook = await requireWebhook(ctx);
    const page = validatePage({ ...ctx.query });
    const { rows, attempts, hasMore } = await listDeliveries(deps.db, webhook.id, { limit: page.limit ?? 50, after: page.cursor ? decodeCursor(page.cursor, 'delivery') : undefined });
    ctx.body = {
      data: rows.map((row) => ({
        delivery_id: row.id,
        event: row.event,
        audit_id: row.audit_id,
        url: row.url,
        state: row.state,
        created_at: iso(row.created_at),
        next_attempt_at: iso(row.next_attempt_at),
        redeliverable_until: iso(new Date(new Date(row.created_at).getTime() + deps.config.redeliveryWindowMs)),
        attempts: attempts
          .filter((a) => a.delivery_id === row.id)
          .map((a) => ({
            attempt: a.attempt,
            trigger: a.trigger,
            started_at: iso(a.started_at),
            duration_ms: a.duration_ms,
            status_code: a.status_code,
            error_class: a.error_class,
            error_message: a.error_message,
            response_excerpt: a.response_excerpt,
            next_attempt_at: iso(a.next_attempt_at),
          })),
      })),
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(rows[rows.length - 1]) : null,
    };
  });

  router.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', proOnly, async (ctx) => {
    const webhook = await requireWebhook(ctx);
    const deliveryId = ctx.params.deliveryId;
    const delivery = hasIdShape('delivery', deliveryId) ? await findDelivery(deps.db, webhook.id, deliveryId) : undefined;
    if (!delivery) throw new ApiError('delivery_not_found', `no delivery ${hasIdShape('delivery', deliveryId) ? deliveryId : 'with this id'} for webhook ${webhook.id}`);
    const windowEnd = new Date(delivery.created_at).getTime() + deps.config.redeliveryWindowMs;
    const expired = () =>
      new ApiError('redelivery_window_expired', `manual redelivery was possible until ${new Date(windowEnd).toISOString()}; fetch the audit with GET /audits/${delivery.audit_id} instead`);
    if (deps.clock.now().getTime() >= windowEnd) throw expired();
    if ((await deps.deliveries.redeliver(delivery.id)) === 'closed') throw expired();
    ctx.status = 202;
    ctx.body = { delivery_id: delivery.id, state: delivery.state, redelivery: 'requested' };
  });

  async function requireWebhook(ctx: ApiContext): Promise<WebhookRow> {
    const webhookId = ctx.params.webhookId;
    const webhook = hasIdShape('webhook', webhookId) ? await findWebhook(deps.db, scopeOf(ctx), webhookId) : undefined;
    if (!webhook) throw notFound(webhookId);
    return webhook;
  }

  return router;
}

/** The public mock receiver test-mode deliveries go to: answers 200 at once. */
export function mockReceiverRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  router.post('/mock/webhooks', (ctx) => {
    ctx.body = { received: true };
  });
  return router;
}

function scopeOf(ctx: ApiContext) {
  const identity = ctx.state.identity;
  if (!identity) throw new Error('webhook routes need an authenticated request');
  return { workspaceId: identity.workspaceId, mode: identity.mode };
}

function present(row: Pick<WebhookRow, 'id' | 'url' | 'events' | 'created_at'>) {
  return { webhook_id: row.id, url: row.url, events: row.events, created_at: iso(row.created_at) };
}

function notFound(webhookId: string): ApiError {
  // Ids of another shape are not echoed: they may hold anything.
  return new ApiError('webhook_not_found', `no webhook ${hasIdShape('webhook', webhookId) ? webhookId : 'with this id'} in this workspace`);
}

function iso(value: Date | null): string | null {
  return value ? new Date(value).toISOString() : null;
}
