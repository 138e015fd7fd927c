import type Koa from 'koa';
import { ApiError } from '../../errors';
import { newRequestId } from '../../ids';
import { CHANNEL_TARGET_MAX, channelCreateRequest, type ChannelInputProblem } from '../../notifications/channel-input';
import {
  createChannel,
  listWorkspaceChannels,
  MAX_CHANNELS,
  removeChannel,
  type Actor,
  type NotificationServiceDeps,
} from '../../notifications/service';
import { presentNotificationChannel } from '../../presenters/notification-channels';
import { NOTIFICATION_CHANNEL_TYPES, NOTIFICATION_EVENTS } from '../../schemas/api-notifications';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext, type DashboardState } from '../state';
import { ChannelsPage, type ChannelFormValues } from './channels';

type Problem = { message: string; requestId: string };
type Page = { c: DashboardContext; deps: DashboardDeps; service: NotificationServiceDeps; actor: Actor };

/**
 * `/notification-channels` and `/test/notification-channels` (every plan): add an e-mail, Slack or
 * Teams channel with its events, list and remove them. Every rule (the target checked for its type
 * through the outbound policy, the limit per workspace) is src/notifications/service.ts's, the
 * module the API's routes call; whether the form is one the API would take is
 * src/notifications/channel-input.ts's, as for the admin CLI.
 */
export function channelPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const service: NotificationServiceDeps = { db: deps.db, clock: deps.clock, outboundAllow: deps.config.outboundAllow };
  const editor = [requireLogin, requireRole('developer')] as const;
  const page = (handler: (p: Page) => Promise<void>): Koa.Middleware<DashboardState> => {
    return async (ctx) => {
      const c = ctx as DashboardContext;
      await handler({
        c,
        deps,
        service,
        actor: { scope: { workspaceId: signedIn(c).workspace.id, mode: c.state.mode } },
      });
    };
  };
  pages.get(
    '/notification-channels',
    requireLogin,
    page((p) => renderList(p, {})),
  );
  pages.post('/notification-channels', ...editor, page(addChannel));
  pages.post('/notification-channels/:channelId/remove', ...editor, page(remove));
}

async function addChannel(p: Page): Promise<void> {
  const form = await readForm(p.c);
  const typed: ChannelFormValues = {
    type: field(form, 'type'),
    target: field(form, 'target'),
    events: form.getAll('events'),
  };
  const parsed = channelCreateRequest(typed);
  if (parsed.problem)
    return renderList(p, { form: typed, problem: refusal(p.deps, PROBLEMS[parsed.problem]), status: 422 });
  try {
    await createChannel(p.service, p.actor, parsed.request);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    return renderList(p, { form: typed, problem: refusal(p.deps, err.message), status: err.status });
  }
  p.c.status = 303;
  p.c.redirect(`${modePath(p.c.state.mode, '/notification-channels')}?added=1`);
}

/** What the API's schema would refuse in the form (src/notifications/channel-input.ts), said for a person. */
const PROBLEMS: Record<ChannelInputProblem, string> = {
  type_unknown: 'Choose the type of channel: e-mail, Slack or Microsoft Teams.',
  target_empty: 'Enter the e-mail address or the incoming-webhook URL to tell.',
  target_too_long: `Keep the address or URL under ${CHANNEL_TARGET_MAX} characters.`,
  events_empty: 'Choose at least one event to be told of.',
  events_unknown: 'Choose the events from the list, once each.',
  events_repeated: 'Choose the events from the list, once each.',
};

async function remove(p: Page): Promise<void> {
  // Already gone (or never this workspace's): the list shows what there is.
  await removeChannel(p.service, p.actor, p.c.params.channelId ?? '').catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 'notification_channel_not_found')) throw err;
  });
  p.c.status = 303;
  p.c.redirect(modePath(p.c.state.mode, '/notification-channels'));
}

async function renderList(
  p: Page,
  extra: { form?: ChannelFormValues; problem?: Problem; status?: number },
): Promise<void> {
  const { c } = p;
  // The limit is small: one page holds every channel.
  const listed = await listWorkspaceChannels(p.service, p.actor, { limit: MAX_CHANNELS });
  render(
    c,
    <Layout ctx={c} title="Notifications">
      <ChannelsPage
        ctx={c}
        basePath={modePath(c.state.mode, '')}
        canEdit={may(c, 'developer')}
        types={NOTIFICATION_CHANNEL_TYPES}
        events={NOTIFICATION_EVENTS}
        channels={listed.rows.map(presentNotificationChannel)}
        max={MAX_CHANNELS}
        form={extra.form}
        added={c.query.added === '1'}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}

function refusal(deps: DashboardDeps, message: string): Problem {
  const requestId = newRequestId();
  deps.log?.(`dashboard notification channel request refused (${requestId}): ${message}`);
  return { message, requestId };
}
