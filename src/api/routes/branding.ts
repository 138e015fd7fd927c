import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { presentBranding } from '../../presenters/branding';
import { BrandingError, validateBranding } from '../../reports/branding';
import { loadBranding, saveBranding } from '../../reports/branding-repository';
import { LogoChecks } from '../../reports/logo-checks';
import { putBrandingBodySchema, type PutBrandingBody } from '../../schemas/api';
import { ApiError } from '../../errors';
import { caller, type ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator } from '../validation';

const validateBrandingBody = bodyValidator<PutBrandingBody>(putBrandingBodySchema);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The workspace's report branding (pro and up): what its PDF reports look like. */
export function brandingRoutes(deps: { db: Db; config: Config; clock: Clock }): Router<ApiState> {
  const router = new Router<ApiState>();
  // Decoding a logo is seconds of CPU at worst: done in a worker thread, one at a time.
  const logoChecks = new LogoChecks();

  router.get('/branding', tierGate('branding'), async (ctx) => {
    ctx.body = presentBranding(await loadBranding(deps.db, caller(ctx).scope));
  });

  router.put('/branding', tierGate('branding'), async (ctx) => {
    const body = validateBrandingBody(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const branding = await brandingFromBody(body, logoChecks);
    ctx.body = presentBranding(await saveBranding(deps.db, caller(ctx).scope, branding, deps.clock.now()));
  });

  router.delete('/branding', tierGate('branding'), async (ctx) => {
    await saveBranding(deps.db, caller(ctx).scope, null, deps.clock.now());
    ctx.status = 204;
  });

  return router;
}

async function brandingFromBody(body: PutBrandingBody, logoChecks: LogoChecks) {
  let logo: Buffer | undefined;
  if (typeof body.logo === 'string') {
    if (!BASE64.test(body.logo))
      throw new ApiError('invalid_request', 'field logo must be base64-encoded PNG or JPEG bytes');
    logo = Buffer.from(body.logo, 'base64');
  }
  try {
    const branding = validateBranding({
      displayName: body.display_name,
      primaryColor: body.primary_color,
      footerText: body.footer_text ?? undefined,
      contactLine: body.contact_line ?? undefined,
      logo,
    });
    if (branding.logo) await logoChecks.check(branding.logo);
    return branding;
  } catch (err) {
    if (err instanceof BrandingError)
      throw new ApiError(
        'invalid_request',
        `field ${snakeCase(err.field)} ${err.message.replace(/^branding\.\w+: /, '')}`,
      );
    throw err;
  }
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
