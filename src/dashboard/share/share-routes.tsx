import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import { NEUTRAL_BRANDING } from '../../reports/branding';
import { reportBranding } from '../../reports/branding-service';
import { displayDomain } from '../../reports/pdf/display-names';
import { sharePath, SHARE_ACCESS_COOKIE } from '../../shares/access';
import { badgeSvg } from '../../shares/badge';
import { ShareOpenings } from '../../shares/openings';
import type { OpenedShare } from '../../shares/repository';
import { grantShareAccess, mayViewShare, openShare, sharedResult, unlockShare } from '../../shares/service';
import { readCookie, setCookie } from '../cookies';
import { fromOurOrigin, sameToken } from '../csrf';
import type { DashboardDeps } from '../deps';
import { readForm } from '../form';
import { RefusedInputError } from '../refused-input';
import { secureCookies } from '../session';
import type { DashboardContext, DashboardState } from '../state';
import { renderSharePage, type SharePage } from './share-document';
import { LinkGone, PasswordForm } from './share-gate';
import { ShareRenderCache } from './share-cache';
import { ShareReport, ShareStatus, type ShareContext } from './share-report';

/**
 * The public side of share links (docs/decisions.md, "Share links"): `/share/{token}` (the report, or
 * its password form first), `POST /share/{token}` (the password) and `/share/{token}/badge.svg`.
 * No session and no API key: the token is the credential, and every link that opens nothing is 404.
 * Mounted before the dashboard's session and CSRF layers, which are for signed-in people.
 */
export function shareRoutes(deps: DashboardDeps): Router<DashboardState> {
  const router = new Router<DashboardState>();
  const kept = renderedShares();
  const opening = { db: deps.db, clock: deps.clock, shareOpenings: new ShareOpenings(deps.db, deps.changes ?? null) };
  const open = (ctx: DashboardContext) => openShare(opening, ctx.params.token!, kept.forget);
  router.use(shareHeaders(deps));
  router.get('/share/:token/badge.svg', async (ctx) => {
    const opened = await open(ctx);
    if (!opened) return answer(ctx, 404, gone());
    if (!(await unlocked(ctx, deps, opened)))
      return answer(ctx, 403, gone('This badge is protected', 'Open the link and enter its password first.'));
    serveBadge(ctx, opened, await kept.badges.get(opened.share.id, badgeVersion(opened), () => badge(opened)));
  });
  router.get('/share/:token', async (ctx) => {
    const opened = await open(ctx);
    if (!opened) return answer(ctx, 404, gone());
    if (!(await unlocked(ctx, deps, opened)))
      return answer(ctx, 200, await passwordPage(deps, opened, ctx, csrfToken(ctx, deps)));
    const path = sharePath(ctx.params.token!);
    const page = await kept.pages.get(opened.share.id, pageVersion(opened), () => reportPage(deps, opened, path));
    answer(ctx, 200, page);
  });
  router.post('/share/:token', async (ctx) => {
    const opened = await open(ctx);
    if (!opened) return answer(ctx, 404, gone());
    const path = sharePath(ctx.params.token!);
    if (opened.share.password_hash === null) return seeOther(ctx, path);
    const form = await readForm(ctx);
    const csrf = readCookie(ctx, CSRF_COOKIE) ?? '';
    if (!fromOurOrigin(ctx, deps) || !sameToken(form.get('_csrf') ?? '', csrf))
      return answer(ctx, 403, await passwordPage(deps, opened, ctx, csrfToken(ctx, deps)));
    const outcome = await unlockShare(deps, opened.share, form.get('password') ?? '');
    if (outcome.outcome === 'open') {
      const cookie = await grantShareAccess(deps, opened.share);
      setCookie(ctx, secureCookies(deps), SHARE_ACCESS_COOKIE, cookie.value, cookie.maxAgeSeconds, { path });
      return seeOther(ctx, path);
    }
    if (outcome.outcome === 'throttled') {
      ctx.set('Retry-After', String(outcome.retryAfterSeconds));
      return answer(ctx, 429, await passwordPage(deps, opened, ctx, csrf, outcome));
    }
    return answer(ctx, 403, await passwordPage(deps, opened, ctx, csrf, { outcome: 'wrong' }));
  });
  return router;
}

// The password form's double-submit token, scoped to the link's path (src/dashboard/csrf.ts explains the pattern).
const CSRF_COOKIE = 'share_csrf';
// A badge may sit in caches this long: a revoked link's badge lingers at most that (README "Share links").
const BADGE_MAX_AGE_SECONDS = 300;
// What this process keeps rendered: a report page is tens to hundreds of KiB, a badge under one.
const PAGE_CACHE_BYTES = 64 * 1024 * 1024;
const BADGE_CACHE_BYTES = 1024 * 1024;

/** A page as kept: its bytes, ready to send, and its policy. */
interface RenderedPage {
  html: Buffer;
  csp: string;
}

interface RenderedBadge {
  svg: Buffer;
  etag: string;
}

/** The report pages and badges this process rendered, per link (./share-cache.ts). */
function renderedShares() {
  const pages = new ShareRenderCache<RenderedPage>({
    maxBytes: PAGE_CACHE_BYTES,
    sizeOf: (page) => page.html.length + page.csp.length,
  });
  const badges = new ShareRenderCache<RenderedBadge>({ maxBytes: BADGE_CACHE_BYTES, sizeOf: (b) => b.svg.length });
  return {
    pages,
    badges,
    forget: (shareId: string) => {
      pages.forget(shareId);
      badges.forget(shareId);
    },
  };
}

/** What a report page is rendered from that can change: the audit's state and completion, and the branding. */
function pageVersion(opened: OpenedShare): string {
  const completed = opened.audit.completed_at ? new Date(opened.audit.completed_at).getTime() : '';
  return `${opened.audit.id} ${opened.audit.status} ${completed} ${opened.brandingRevision}`;
}

function badgeVersion(opened: OpenedShare): string {
  return `${opened.audit.status} ${opened.audit.score} ${opened.audit.grade}`;
}

/** Every answer under /share: never indexed, never framed, no Referer to other sites; the page's own CSP comes with it. */
function shareHeaders(deps: DashboardDeps): Koa.Middleware<DashboardState> {
  const https = deps.config.publicBaseUrl?.startsWith('https://') ?? false;
  return async (ctx, next) => {
    ctx.set({
      'X-Robots-Tag': 'noindex',
      'Referrer-Policy': 'same-origin',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
      'Content-Security-Policy': "default-src 'none'",
      'Cache-Control': 'no-store',
    });
    if (https) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    try {
      await next();
    } catch (err) {
      if (err instanceof RefusedInputError) return answer(ctx, err.status, gone(err.title, err.message));
      // The route's template, never the path: the path holds the link's token.
      (deps.log ?? console.error)(`share ${ctx.method} ${String(ctx._matchedRoute ?? '/share/…')} failed`, err);
      answer(ctx, 500, gone('Something went wrong', 'Try again in a moment.'));
    }
  };
}

function answer(ctx: Koa.ParameterizedContext<DashboardState>, status: number, page: SharePage | RenderedPage): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', page.csp);
  ctx.body = page.html;
}

/** After a form: the page again, fetched with GET (so a reload never posts the password twice). */
function seeOther(ctx: DashboardContext, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}

function gone(title = 'This link does not work', message?: string) {
  return renderSharePage({ title, branding: NEUTRAL_BRANDING, children: <LinkGone title={title} message={message} /> });
}

/** A link without a password is open; one with a password, for a browser holding its signed cookie. */
function unlocked(ctx: DashboardContext, deps: DashboardDeps, opened: OpenedShare): Promise<boolean> {
  return mayViewShare(deps, opened.share, readCookie(ctx, SHARE_ACCESS_COOKIE));
}

/** The double-submit token of the password form: the browser's cookie for this link, or a new one. */
function csrfToken(ctx: DashboardContext, deps: DashboardDeps): string {
  const existing = readCookie(ctx, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  setCookie(ctx, secureCookies(deps), CSRF_COOKIE, token, undefined, {
    path: sharePath(ctx.params.token!),
    sameSite: 'Strict',
  });
  return token;
}

async function brandingOf(deps: DashboardDeps, opened: OpenedShare) {
  const stored = await reportBranding(deps, { workspaceId: opened.share.workspace_id, mode: opened.share.mode });
  return { branding: stored ?? NEUTRAL_BRANDING, branded: stored !== null };
}

async function passwordPage(
  deps: DashboardDeps,
  opened: OpenedShare,
  ctx: DashboardContext,
  csrf: string,
  problem?: { outcome: 'wrong' } | { outcome: 'throttled'; retryAfterSeconds: number },
) {
  const { branding } = await brandingOf(deps, opened);
  return renderSharePage({
    title: `Protected report · ${branding.displayName}`,
    branding,
    children: (
      <PasswordForm
        action={sharePath(ctx.params.token!)}
        csrf={csrf}
        problem={problem?.outcome}
        retryAfterSeconds={problem?.outcome === 'throttled' ? problem.retryAfterSeconds : undefined}
      />
    ),
  });
}

async function reportPage(deps: DashboardDeps, opened: OpenedShare, path: string): Promise<RenderedPage> {
  const [{ branding, branded }, audit] = await Promise.all([brandingOf(deps, opened), sharedResult(deps, opened)]);
  const context: ShareContext = {
    branding,
    branded,
    expiresAt: new Date(opened.share.expires_at),
    badgePath: path,
    publicBadgeUrl: opened.share.password_hash === null ? `${deps.baseUrl()}${path}/badge.svg` : null,
  };
  const domain = displayDomain(opened.audit.domain).unicode;
  const title = `Website audit of ${domain}${branded ? ` · ${branding.displayName}` : ''}`;
  const body = audit ? (
    <ShareReport audit={audit} context={context} />
  ) : (
    <ShareStatus domain={opened.audit.domain} status={opened.audit.status} context={context} />
  );
  const page = renderSharePage({ title, branding, children: body });
  return { html: Buffer.from(page.html), csp: page.csp };
}

async function badge(opened: OpenedShare): Promise<RenderedBadge> {
  const svg = Buffer.from(badgeSvg(opened.audit));
  return { svg, etag: `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"` };
}

/**
 * The badge: grade and score as SVG, cacheable for BADGE_MAX_AGE_SECONDS with an ETag (by anyone when
 * the link has no password; by the browser only, and to whoever unlocked the link, when it has one).
 */
function serveBadge(ctx: DashboardContext, opened: OpenedShare, rendered: RenderedBadge): void {
  const shared = opened.share.password_hash === null;
  ctx.set({
    'Cache-Control': `${shared ? 'public' : 'private'}, max-age=${BADGE_MAX_AGE_SECONDS}`,
    ETag: rendered.etag,
    // Anyone's page may show a public badge; a protected one stays on ours.
    'Cross-Origin-Resource-Policy': shared ? 'cross-origin' : 'same-origin',
  });
  if (!shared) ctx.set('Vary', 'Cookie');
  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === rendered.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'image/svg+xml; charset=utf-8';
  ctx.body = rendered.svg;
}
