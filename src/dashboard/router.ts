import Router from '@koa/router';
import type Koa from 'koa';
import { assetRoutes } from './assets';
import { csrfProtection } from './csrf';
import type { DashboardDeps } from './deps';
import { pageRoutes } from './pages';
import { keyRoutes } from './pages/keys';
import { invitationRoutes } from './pages/invitation';
import { loginRoutes } from './pages/login';
import { memberRoutes } from './pages/members';
import { overviewRoutes } from './pages/overview';
import { passwordRoutes } from './pages/password';
import { planRoutes } from './pages/plan';
import { auditPageRoutes } from './pages/audits-routes';
import { webhookPageRoutes } from './pages/webhooks-routes';
import { brandingPageRoutes } from './pages/branding-routes';
import { sitePageRoutes } from './pages/sites-routes';
import { channelPageRoutes } from './pages/channels-routes';
import { fallbackRoutes } from './not-found';
import { signupRoutes } from './pages/signup';
import { refuseUnreadableInput } from './input';
import { RefusedInputError } from './refused-input';
import { renderStatus } from './render';
import { securityHeaders } from './security-headers';
import { sessionMiddleware } from './session';
import { shareRoutes } from './share/share-routes';
import type { DashboardContext, DashboardState } from './state';

/**
 * The customer dashboard (docs/dashboard.md), mounted on the API's Koa app: pages at `/…` (live
 * data) and `/test/…` (test data), its assets at `/assets/…`. Every page response passes through
 * security headers → error page → session → CSRF/Origin check → unreadable-input check, in that order.
 */
export function dashboardMiddleware(deps: DashboardDeps): Koa.Middleware {
  const assets = new Router();
  assets.use(securityHeaders(deps.config.publicBaseUrl));
  assetRoutes(assets);
  // Public share links: no session, their own headers and CSP (src/dashboard/share/).
  const shares = shareRoutes(deps);

  const router = new Router<DashboardState>();
  router.use(securityHeaders(deps.config.publicBaseUrl));
  router.use(errorPage(deps));
  router.use(async (ctx, next) => {
    ctx.state.mode = ctx.path === '/test' || ctx.path.startsWith('/test/') ? 'test' : 'live';
    await next();
  });
  router.use(sessionMiddleware(deps));
  router.use(csrfProtection(deps));
  router.use(refuseUnreadableInput);

  signupRoutes(router, deps);
  loginRoutes(router, deps);
  invitationRoutes(router, deps);
  const pages = pageRoutes(router);
  overviewRoutes(pages, deps);
  keyRoutes(pages, deps);
  planRoutes(pages, deps);
  memberRoutes(pages, deps);
  passwordRoutes(pages, deps);
  auditPageRoutes(pages, deps);
  sitePageRoutes(pages, deps);
  webhookPageRoutes(pages, deps);
  channelPageRoutes(pages, deps);
  brandingPageRoutes(pages, deps);
  fallbackRoutes(router, deps);

  const composed = [assets.routes(), shares.routes(), router.routes(), router.allowedMethods()];
  return async (ctx, next) => {
    const run = (i: number): Promise<void> =>
      i < composed.length ? Promise.resolve(composed[i](ctx as never, () => run(i + 1))) : next();
    await run(0);
  };
}

// SQLSTATE class 22, data exception: Postgres refused a value for what it is (out of range, too
// long, NUL). Input the pages should have refused first; should one slip through, it is still the
// visitor's input that was refused, not the service that failed.
const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/** A failure inside a page answers with an HTML page, never the API's JSON envelope, and refused input never with 500. */
function errorPage(deps: DashboardDeps): Koa.Middleware<DashboardState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (err instanceof RefusedInputError)
        return renderStatus(ctx as DashboardContext, err.status, err.title, err.message);
      (deps.log ?? console.error)(`dashboard ${ctx.method} ${ctx.path} failed`, err);
      if (DATA_EXCEPTION.test(String((err as { code?: unknown } | null)?.code)))
        return renderStatus(
          ctx as DashboardContext,
          400,
          'Something you entered cannot be stored',
          'A value is out of range or not valid text. Check what you entered and try again.',
        );
      renderStatus(ctx as DashboardContext, 500, 'Something went wrong', 'Try again in a moment.');
    }
  };
}
