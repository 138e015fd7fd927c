import type Koa from 'koa';
import { accountUsage } from '../../accounts/usage';
import { ApiError } from '../../errors';
import { hasIdShape, newRequestId } from '../../ids';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { presentDelivery } from '../../presenters/deliveries';
import { presentPage } from '../../presenters/page';
import {
  presentCreatedWebhook,
  presentRotatedSecret,
  presentTestOutcome,
  presentWebhook,
} from '../../presenters/webhooks';
import { WEBHOOK_EVENTS } from '../../webhooks/events';
import { DELIVERY_FILTER_CHOICES, deliveryFilterOf, redeliver, webhookDeliveries } from '../../webhooks/recovery';
import {
  createWebhook,
  listWorkspaceWebhooks,
  removeWebhook,
  requireWebhook,
  rotateSecret,
  updateWebhook,
  webhookServiceDeps,
  webhooksIncluded,
  type Actor,
  type WebhookServiceDeps,
} from '../../webhooks/service';
import { sendTestEvent, testEventOutcome } from '../../webhooks/test-event';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
import { modePath, signedIn, type DashboardContext, type DashboardState } from '../state';
import { WebhookDetailPage, type WebhookDetailProps } from './webhook-detail';
import { WebhooksPage, type WebhooksPageProps } from './webhooks';

type Problem = { message: string; requestId: string };
type Page = { c: DashboardContext; deps: DashboardDeps; service: WebhookServiceDeps; actor: Actor };
type Extra = Partial<Pick<WebhookDetailProps, 'retried' | 'tested' | 'rotated' | 'enabled'>> & {
  problem?: Problem;
  status?: number;
};

/**
 * `/webhooks` and `/test/webhooks` (pro and up): add (the secret shown once), remove, and each
 * webhook's page: its state, "Send test event", "Rotate secret", "Enable", and its delivery log with
 * filters and Retry. Every rule (tier gate, outbound URL policy, grace period, redelivery window) is
 * src/webhooks' service module's, the same the API's routes call.
 */
export function webhookPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const service = webhookServiceDeps(deps);
  const editor = [requireLogin, requireRole('developer')] as const;
  const page = (handler: (p: Page) => Promise<void>): Koa.Middleware<DashboardState> => {
    return async (ctx) => {
      const c = ctx as DashboardContext;
      const usage = await accountUsage(deps.db, signedIn(c).workspace.accountId, deps.clock.now());
      const actor = { scope: { workspaceId: signedIn(c).workspace.id, mode: c.state.mode }, usage };
      await refusals(c, () => handler({ c, deps, service, actor }));
    };
  };
  pages.get(
    '/webhooks',
    requireLogin,
    page((p) => renderList(p, {})),
  );
  pages.post('/webhooks', ...editor, page(addWebhook));
  pages.post('/webhooks/:webhookId/remove', ...editor, page(remove));
  pages.get('/webhooks/:webhookId', requireLogin, page(showWebhook));
  pages.post('/webhooks/:webhookId/test', ...editor, page(sendTest));
  pages.post('/webhooks/:webhookId/rotate-secret', ...editor, page(rotate));
  pages.post('/webhooks/:webhookId/enable', ...editor, page(enable));
  pages.post('/webhooks/:webhookId/deliveries/:deliveryId/retry', ...editor, page(retry));
}

/** The service's refusals that end a page: a tier the account lacks (403) or a webhook or delivery not found (404). */
async function refusals(c: DashboardContext, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'tier_required') return renderStatus(c, 403, 'Webhooks need the pro plan', err.message);
    if (err.code === 'webhook_not_found' || err.code === 'delivery_not_found')
      return renderStatus(c, 404, 'Not found', 'There is no such webhook or delivery in this workspace and mode.');
    throw err;
  }
}

async function addWebhook(p: Page): Promise<void> {
  const form = await readForm(p.c);
  const url = field(form, 'url');
  let created;
  try {
    created = await createWebhook(p.service, p.actor, { url, events: form.getAll('events') });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code === 'tier_required') throw err;
    return renderList(p, { url, problem: refusal(p.deps, err.message), status: err.status });
  }
  // Answered in place, not redirected: the secret is shown in this answer only.
  await renderList(p, { created: presentCreatedWebhook(created) });
}

async function remove(p: Page): Promise<void> {
  // Already gone (or never this workspace's): the list shows what there is.
  await removeWebhook(p.service, p.actor, webhookIdOf(p)).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 'webhook_not_found')) throw err;
  });
  p.c.status = 303;
  p.c.redirect(modePath(p.c.state.mode, '/webhooks'));
}

async function showWebhook(p: Page): Promise<void> {
  const query = p.c.query;
  const retried =
    typeof query.retried === 'string' && hasIdShape('delivery', query.retried) ? query.retried : undefined;
  const outcome =
    typeof query.tested === 'string'
      ? await testEventOutcome(p.service, p.actor, webhookIdOf(p), query.tested)
      : undefined;
  await renderDetail(p, {
    retried,
    tested: outcome ? presentTestOutcome(outcome) : undefined,
    enabled: query.enabled === '1',
  });
}

/** One signed webhook.test now; its outcome is shown after the redirect, read back from the delivery log. */
async function sendTest(p: Page): Promise<void> {
  const outcome = await sendTestEvent(p.service, p.actor, webhookIdOf(p));
  p.c.status = 303;
  p.c.redirect(`${detailPath(p)}?tested=${outcome.deliveryId}`);
}

/** Answered in place, not redirected: the new secret is shown in this answer only. */
async function rotate(p: Page): Promise<void> {
  const grace = field(await readForm(p.c), 'grace_seconds');
  try {
    const rotated = await rotateSecret(p.service, p.actor, webhookIdOf(p), {
      graceSeconds: grace === '' ? undefined : Number(grace),
    });
    await renderDetail(p, { rotated: presentRotatedSecret({ webhookId: rotated.webhook.id, ...rotated }) });
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'invalid_request')) throw err;
    await renderDetail(p, { problem: refusal(p.deps, err.message), status: 422 });
  }
}

async function enable(p: Page): Promise<void> {
  await updateWebhook(p.service, p.actor, webhookIdOf(p), { status: 'enabled' });
  p.c.status = 303;
  p.c.redirect(`${detailPath(p)}?enabled=1`);
}

/** The API's redeliver signal, within the same redelivery window, never to a disabled webhook. */
async function retry(p: Page): Promise<void> {
  let delivery;
  try {
    delivery = await redeliver(p.service, p.actor, webhookIdOf(p), p.c.params.deliveryId ?? '');
  } catch (err) {
    if (!(err instanceof ApiError && (err.code === 'redelivery_window_expired' || err.code === 'webhook_disabled')))
      throw err;
    const message =
      err.code === 'webhook_disabled'
        ? 'This webhook is disabled: enable it before sending a delivery again.'
        : 'Retry is no longer possible for this delivery (its redelivery window has closed); open the audit to get its result instead.';
    return renderDetail(p, { problem: refusal(p.deps, message), status: 409 });
  }
  p.c.status = 303;
  p.c.redirect(`${detailPath(p)}?retried=${delivery.id}`);
}

async function renderList(
  p: Page,
  extra: Pick<WebhooksPageProps, 'created' | 'url'> & { problem?: Problem; status?: number },
): Promise<void> {
  const { c } = p;
  const allowed = webhooksIncluded(p.actor.usage);
  const page = allowed ? await listWorkspaceWebhooks(p.service, p.actor, { limit: 200 }) : { rows: [], hasMore: false };
  render(
    c,
    <Layout ctx={c} title="Webhooks">
      <WebhooksPage
        basePath={modePath(c.state.mode, '')}
        plansHref="/plan"
        csrfToken={signedIn(c).csrfToken}
        allowed={allowed}
        canEdit={may(c, 'developer')}
        events={WEBHOOK_EVENTS}
        webhooks={page.rows.map((row) => presentWebhook(row, p.deps.clock.now()))}
        created={extra.created}
        url={extra.url}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? (extra.created ? 201 : 200),
  );
}

async function renderDetail(p: Page, extra: Extra): Promise<void> {
  const { c, deps } = p;
  const { status, problem: refused, ...notices } = extra;
  const webhook = await requireWebhook(p.service, p.actor, webhookIdOf(p));
  const text = (name: string) => (typeof c.query[name] === 'string' ? (c.query[name] as string) : '');
  const typed = { status: text('status'), event: text('event'), since: text('since') };
  let problem = refused;
  let listed: { data: ReturnType<typeof presentDelivery>[]; next_cursor: string | null } = {
    data: [],
    next_cursor: null,
  };
  try {
    const filter = deliveryFilterOf(typed);
    const { rows, attempts, hasMore } = await webhookDeliveries(
      p.service,
      p.actor,
      webhook.id,
      { limit: 50, after: cursorOf(text('cursor')) },
      filter,
    );
    listed = presentPage(
      { rows, hasMore },
      (row) => presentDelivery(row, attempts, deps.config.redeliveryWindowMs),
      encodeCursor,
    );
  } catch (err) {
    if (!(err instanceof ApiError && err.code === 'invalid_request')) throw err;
    problem ??= refusal(deps, `The filter was not applied: ${err.message}.`);
  }
  render(
    c,
    <Layout ctx={c} title="Webhook">
      <WebhookDetailPage
        basePath={modePath(c.state.mode, '')}
        csrfToken={signedIn(c).csrfToken}
        canEdit={may(c, 'developer')}
        now={deps.clock.now()}
        webhook={presentWebhook(webhook, deps.clock.now())}
        disableAfterMs={deps.config.webhookDisableAfterMs}
        deliveries={listed.data}
        nextCursor={listed.next_cursor}
        paged={text('cursor') !== ''}
        filter={{ ...typed, choices: DELIVERY_FILTER_CHOICES }}
        {...notices}
        problem={problem}
      />
    </Layout>,
    status ?? (problem ? 400 : 200),
  );
}

/** A stale or edited cursor shows the first page. */
function cursorOf(cursor: string): { createdAt: string; id: string } | undefined {
  try {
    return cursor ? decodeCursor(cursor, 'delivery') : undefined;
  } catch {
    return undefined;
  }
}

function webhookIdOf(p: Page): string {
  return p.c.params.webhookId ?? '';
}

function detailPath(p: Page): string {
  return modePath(p.c.state.mode, `/webhooks/${webhookIdOf(p)}`);
}

function refusal(deps: DashboardDeps, message: string): Problem {
  const requestId = newRequestId();
  deps.log?.(`dashboard webhook request refused (${requestId}): ${message}`);
  return { message, requestId };
}
