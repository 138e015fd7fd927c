import { FEATURE_MIN_TIER, tierAtLeast } from '../../accounts/tiers';
import { accountUsage } from '../../accounts/usage';
import { ApiError } from '../../errors';
import { hasIdShape, newRequestId } from '../../ids';
import { checkWebhookUrl } from '../../outbound/url-policy';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { presentDelivery } from '../../presenters/deliveries';
import { presentPage } from '../../presenters/page';
import { presentCreatedWebhook, presentWebhook } from '../../presenters/webhooks';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../webhooks/events';
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
import { generateWebhookSecret } from '../../webhooks/signing';
import { redeliveryOf } from '../../webhooks/redelivery';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { featureGate } from '../feature-gate';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';
import { WebhookDetailPage } from './webhook-detail';
import { WebhooksPage, type WebhooksPageProps } from './webhooks';

type Problem = { message: string; requestId: string };

/**
 * `/webhooks` and `/test/webhooks` (pro and up, the API's tier gate): add (same outbound URL policy
 * as the API; the secret shown once), remove, and each webhook's delivery log with Retry, which
 * sends the API's redeliver signal within the same window.
 */
export function webhookPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const gate = featureGate(deps, 'webhooks', 'Webhooks need the pro plan');
  const editor = [requireLogin, requireRole('developer'), gate] as const;
  pages.get('/webhooks', requireLogin, (ctx) => renderList(ctx as DashboardContext, deps, {}));
  pages.post('/webhooks', ...editor, (ctx) => addWebhook(ctx as DashboardContext, deps));
  pages.post('/webhooks/:webhookId/remove', ...editor, (ctx) => removeWebhook(ctx as DashboardContext, deps));
  pages.get('/webhooks/:webhookId', requireLogin, gate, (ctx) => showWebhook(ctx as DashboardContext, deps));
  pages.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', ...editor, (ctx) =>
    retryDelivery(ctx as DashboardContext, deps),
  );
}

async function addWebhook(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const form = await readForm(c);
  const url = field(form, 'url');
  const events = form
    .getAll('events')
    .filter((e): e is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (events.length === 0)
    return renderList(c, deps, { url, problem: refusal(deps, 'Choose at least one event to send.'), status: 422 });
  let checked: string;
  try {
    checked = await checkWebhookUrl('url', url, deps.config.outboundAllow);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return renderList(c, deps, { url, problem: refusal(deps, err.message), status: err.status });
  }
  const row = {
    id: newWebhookId(),
    workspace_id: signedIn(c).workspace.id,
    mode: c.state.mode,
    url: checked,
    events,
    secret: generateWebhookSecret(),
    created_at: deps.clock.now(),
  };
  await insertWebhook(deps.db, row);
  // Answered in place, not redirected: the secret is shown in this answer only.
  const stored = (await findWebhook(deps.db, scopeOf(c), row.id))!;
  await renderList(c, deps, { created: presentCreatedWebhook(stored) });
}

async function removeWebhook(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const webhookId = c.params.webhookId ?? '';
  if (hasIdShape('webhook', webhookId)) await deleteWebhook(deps.db, scopeOf(c), webhookId, deps.clock.now());
  c.status = 303;
  c.redirect(modePath(c.state.mode, '/webhooks'));
}

async function showWebhook(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const webhook = await webhookInView(c, deps);
  if (!webhook) return notFound(c);
  const retried =
    typeof c.query.retried === 'string' && hasIdShape('delivery', c.query.retried) ? c.query.retried : undefined;
  await renderDetail(c, deps, webhook, { retried });
}

/** Sends the API's redeliver signal, within the same redelivery window. */
async function retryDelivery(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const webhook = await webhookInView(c, deps);
  const deliveryId = c.params.deliveryId ?? '';
  const delivery =
    webhook && hasIdShape('delivery', deliveryId) ? await findDelivery(deps.db, webhook.id, deliveryId) : undefined;
  if (!webhook || !delivery) return notFound(c);
  const windowEnd = new Date(delivery.created_at).getTime() + deps.config.redeliveryWindowMs;
  const open =
    deps.clock.now().getTime() < windowEnd && (await deps.deliveries.redeliver(redeliveryOf(delivery))) === 'signalled';
  if (!open) {
    const message = `Retry was possible until ${new Date(windowEnd).toISOString()}; open the audit to get its result instead.`;
    return renderDetail(c, deps, webhook, { problem: refusal(deps, message), status: 409 });
  }
  c.status = 303;
  c.redirect(`${modePath(c.state.mode, `/webhooks/${webhook.id}`)}?retried=${delivery.id}`);
}

async function renderList(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: Pick<WebhooksPageProps, 'created' | 'url'> & { problem?: Problem; status?: number },
): Promise<void> {
  const me = signedIn(c);
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  const allowed = tierAtLeast(usage.tier, FEATURE_MIN_TIER.webhooks);
  const page = allowed ? await listWebhooks(deps.db, scopeOf(c), { limit: 200 }) : { rows: [], hasMore: false };
  render(
    c,
    <Layout ctx={c} title="Webhooks">
      <WebhooksPage
        basePath={modePath(c.state.mode, '')}
        plansHref="/plan"
        csrfToken={me.csrfToken}
        allowed={allowed}
        canEdit={may(c, 'developer')}
        events={WEBHOOK_EVENTS}
        webhooks={page.rows.map((row) => presentWebhook(row))}
        created={extra.created}
        url={extra.url}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? (extra.created ? 201 : 200),
  );
}

async function renderDetail(
  c: DashboardContext,
  deps: DashboardDeps,
  webhook: WebhookRow,
  extra: { retried?: string; problem?: Problem; status?: number },
): Promise<void> {
  const me = signedIn(c);
  let after: { createdAt: string; id: string } | undefined;
  try {
    after = typeof c.query.cursor === 'string' ? decodeCursor(c.query.cursor, 'delivery') : undefined;
  } catch {
    after = undefined; // a stale or edited cursor shows the first page
  }
  const { rows, attempts, hasMore } = await listDeliveries(deps.db, webhook.id, { limit: 50, after });
  const listed = presentPage(
    { rows, hasMore },
    (row) => presentDelivery(row, attempts, deps.config.redeliveryWindowMs),
    encodeCursor,
  );
  render(
    c,
    <Layout ctx={c} title="Webhook deliveries">
      <WebhookDetailPage
        basePath={modePath(c.state.mode, '')}
        csrfToken={me.csrfToken}
        canRetry={may(c, 'developer')}
        now={deps.clock.now()}
        webhook={presentWebhook(webhook)}
        deliveries={listed.data}
        nextCursor={listed.next_cursor}
        retried={extra.retried}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}

function scopeOf(c: DashboardContext) {
  return { workspaceId: signedIn(c).workspace.id, mode: c.state.mode };
}

async function webhookInView(c: DashboardContext, deps: DashboardDeps): Promise<WebhookRow | undefined> {
  const webhookId = c.params.webhookId ?? '';
  return hasIdShape('webhook', webhookId) ? findWebhook(deps.db, scopeOf(c), webhookId) : undefined;
}

function refusal(deps: DashboardDeps, message: string): Problem {
  const requestId = newRequestId();
  deps.log?.(`dashboard webhook request refused (${requestId}): ${message}`);
  return { message, requestId };
}

function notFound(c: DashboardContext): void {
  renderStatus(c, 404, 'Not found', 'There is no such webhook or delivery in this workspace and mode.');
}
