import { randomBytes, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { DashboardDeps } from './deps';
import { ANONYMOUS_CSRF_COOKIE, readCookie, setCookie } from './cookies';
import { readForm } from './form';
import { secureCookies } from './session';
import { renderStatus } from './render';
import type { DashboardContext, DashboardState } from './state';

/** Two tokens compared in constant time; an empty one matches nothing. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * The origin pages are served from: PUBLIC_BASE_URL's when set (behind a proxy), else the request's
 * scheme and Host (not Koa 3's ctx.origin, which echoes the Origin header).
 */
function expectedOrigin(ctx: DashboardContext, deps: DashboardDeps): string {
  return deps.config.publicBaseUrl ? new URL(deps.config.publicBaseUrl).origin : `${ctx.protocol}://${ctx.host}`;
}

/** Origin (or, from older browsers, Referer) names this site: a POST from another site is refused. */
export function fromOurOrigin(ctx: DashboardContext, deps: DashboardDeps): boolean {
  const origin = ctx.get('Origin');
  const source = origin && origin !== 'null' ? origin : ctx.get('Referer');
  if (!source) return false;
  try {
    return new URL(source).origin === expectedOrigin(ctx, deps);
  } catch {
    return false;
  }
}

/**
 * Every POST must come from our own origin and carry the form's `_csrf` field: the session's token
 * when signed in, else the double-submit cookie set with the signed-out forms. Compared in constant time.
 */
export function csrfProtection(deps: DashboardDeps): Koa.Middleware<DashboardState> {
  return async (ctx, next) => {
    const context = ctx as DashboardContext;
    if (ctx.method !== 'POST') return next();
    const sent = (await readForm(context)).get('_csrf') ?? '';
    const expected = ctx.state.dashboard?.csrfToken ?? readCookie(context, ANONYMOUS_CSRF_COOKIE) ?? '';
    if (!fromOurOrigin(context, deps) || !sameToken(sent, expected)) {
      renderStatus(context, 403, 'This form has expired', 'Reload the page and try again.');
      return;
    }
    await next();
  };
}

/** The token a signed-out form carries: the existing double-submit cookie, or a new one. */
export function anonymousCsrfToken(ctx: DashboardContext, deps: DashboardDeps): string {
  const existing = readCookie(ctx, ANONYMOUS_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(ctx, secureCookies(deps), ANONYMOUS_CSRF_COOKIE, token);
  return token;
}
