import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentBranding } from '../../presenters/branding';
import { clearBranding, setBranding, showBranding, type BrandingActor } from '../../reports/branding-service';
import { putBrandingBodySchema, type PutBrandingBody } from '../../schemas/api';
import { ApiError } from '../../errors';
import { caller, type ApiContext, type ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator } from '../validation';

const validateBrandingBody = bodyValidator<PutBrandingBody>(putBrandingBodySchema);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The workspace's report branding (pro and up): what its PDF reports look like. The rules are
 * src/reports/branding-service.ts's, shared with the dashboard and the admin CLI; this is their HTTP face.
 */
export function brandingRoutes(deps: { db: Db; config: Config; clock: Clock }): Router<ApiState> {
  const router = new Router<ApiState>();

  router.get('/branding', tierGate('branding'), async (ctx) => {
    ctx.body = presentBranding(await showBranding(deps, actor(ctx)));
  });

  router.put('/branding', tierGate('branding'), async (ctx) => {
    const body = validateBrandingBody(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const input = {
      displayName: body.display_name,
      primaryColor: body.primary_color,
      footerText: body.footer_text ?? undefined,
      contactLine: body.contact_line ?? undefined,
      logo: typeof body.logo === 'string' ? decodeLogo(body.logo) : undefined,
    };
    ctx.body = presentBranding(await setBranding(deps, actor(ctx), input));
  });

  router.delete('/branding', tierGate('branding'), async (ctx) => {
    await clearBranding(deps, actor(ctx));
    ctx.status = 204;
  });

  return router;
}

function actor(ctx: ApiContext): BrandingActor {
  const { scope, usage } = caller(ctx);
  return { scope, account: usage };
}

/** The JSON body carries the logo's bytes as base64 (the representation, not a branding rule). */
function decodeLogo(logo: string): Buffer {
  if (!BASE64.test(logo)) throw new ApiError('invalid_request', 'field logo must be base64-encoded PNG or JPEG bytes');
  return Buffer.from(logo, 'base64');
}
