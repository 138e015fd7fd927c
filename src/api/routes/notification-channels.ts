import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import {
  createChannel,
  listWorkspaceChannels,
  removeChannel,
  type Actor,
  type NotificationServiceDeps,
} from '../../notifications/service';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { presentNotificationChannel } from '../../presenters/notification-channels';
import { presentPage } from '../../presenters/page';
import {
  createNotificationChannelBodySchema,
  pageQuerySchema,
  type CreateNotificationChannelBody,
  type PageQuery,
} from '../../schemas/api';
import { caller, type ApiContext, type ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { bodyValidator, queryValidator } from '../validation';

const validateCreate = bodyValidator<CreateNotificationChannelBody>(createNotificationChannelBodySchema);
const validatePage = queryValidator<PageQuery>(pageQuerySchema);

export interface NotificationChannelRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
}

/**
 * Notification channels (README, "Notification channels"): e-mail, Slack and Teams targets told of
 * site.regressed, audit.failed, webhook.failing and webhook.disabled. The rules live in
 * src/notifications/service.ts; this is their HTTP face.
 */
export function notificationChannelRoutes(deps: NotificationChannelRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const service: NotificationServiceDeps = {
    db: deps.db,
    clock: deps.clock,
    outboundAllow: deps.config.outboundAllow,
  };

  router.post('/notification-channels', async (ctx) => {
    const body = validateCreate(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const row = await createChannel(service, actor(ctx), body);
    ctx.status = 201;
    ctx.body = presentNotificationChannel(row);
  });

  router.get('/notification-channels', async (ctx) => {
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'notification_channel') : undefined;
    const channels = await listWorkspaceChannels(service, actor(ctx), { limit: page.limit ?? 50, after });
    ctx.body = presentPage(channels, presentNotificationChannel, encodeCursor);
  });

  router.delete('/notification-channels/:channelId', async (ctx) => {
    await removeChannel(service, actor(ctx), ctx.params.channelId);
    ctx.status = 204;
  });

  return router;
}

function actor(ctx: ApiContext): Actor {
  return { scope: caller(ctx).scope };
}
