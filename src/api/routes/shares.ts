import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentCreatedShare, presentShareList } from '../../presenters/shares';
import { createShareBodySchema, type CreateShareBody } from '../../schemas/api';
import { createShare, listShares, revokeShare, type ShareActor, type ShareServiceDeps } from '../../shares/service';
import { caller, type ApiContext, type ApiState } from '../context';
import { readOptionalJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator } from '../validation';

const validateCreate = bodyValidator<CreateShareBody>(createShareBodySchema);

/**
 * Share links of an audit (README "Share links"), pro and up: the HTTP face of src/shares/service.ts,
 * which the public page (src/dashboard/share/) and the dashboard use too.
 */
export function shareRoutes(deps: { db: Db; config: Config; clock: Clock; baseUrl: () => string }): Router<ApiState> {
  const router = new Router<ApiState>();
  const service: ShareServiceDeps = { db: deps.db, clock: deps.clock, baseUrl: deps.baseUrl };

  router.post('/audits/:auditId/shares', tierGate('shares'), async (ctx) => {
    // Every field has a default: no body at all is a 30-day link without a password.
    const body = validateCreate(await readOptionalJsonBody(ctx, deps.config.maxBodyBytes));
    const { share, url } = await createShare(service, actor(ctx), ctx.params.auditId, {
      expiresInDays: body.expires_in_days,
      password: body.password,
    });
    ctx.status = 201;
    ctx.body = presentCreatedShare(share, url, deps.clock.now());
  });

  router.get('/audits/:auditId/shares', tierGate('shares'), async (ctx) => {
    const rows = await listShares(service, actor(ctx), ctx.params.auditId);
    const now = deps.clock.now();
    ctx.body = presentShareList(rows, now);
  });

  router.delete('/shares/:shareId', tierGate('shares'), async (ctx) => {
    await revokeShare(service, actor(ctx), ctx.params.shareId);
    ctx.status = 204;
  });

  return router;
}

function actor(ctx: ApiContext): ShareActor {
  const { scope, usage } = caller(ctx);
  return { scope, usage };
}
