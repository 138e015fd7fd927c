import type Koa from 'koa';
import { membershipsOf } from '../people/users';
import { resumeSession, SESSION_ABSOLUTE_MS, startSession } from '../people/sessions';
import type { DashboardDeps } from './deps';
import { clearCookie, readCookie, SESSION_COOKIE, setCookie } from './cookies';
import type { DashboardContext, DashboardState } from './state';

export const secureCookies = (deps: DashboardDeps): boolean =>
  deps.config.publicBaseUrl?.startsWith('https://') ?? false;

/** Reads the session cookie and sets ctx.state.dashboard for a live session (see docs/dashboard.md). */
export function sessionMiddleware(deps: DashboardDeps): Koa.Middleware<DashboardState> {
  return async (ctx, next) => {
    const token = readCookie(ctx as DashboardContext, SESSION_COOKIE);
    const session = token ? await resumeSession(deps.db, deps.clock, token) : null;
    const memberships = session ? await membershipsOf(deps.db, session.userId) : [];
    // The session's workspace, unless the user has since been removed from it.
    const workspace = memberships.find((m) => m.workspaceId === session?.workspaceId) ?? memberships[0];
    if (session && workspace) {
      ctx.state.dashboard = {
        user: { id: session.userId, email: session.email },
        session: { tokenHash: session.tokenHash },
        csrfToken: session.csrfToken,
        workspace: {
          id: workspace.workspaceId,
          accountId: workspace.accountId,
          name: workspace.workspaceName,
          role: workspace.role,
        },
        mode: ctx.state.mode,
      };
    } else if (token) {
      clearCookie(ctx as DashboardContext, secureCookies(deps), SESSION_COOKIE);
    }
    await next();
  };
}

/** Logs a user in: a new session (never a reused one) and its cookie. */
export async function logIn(
  ctx: DashboardContext,
  deps: DashboardDeps,
  input: { userId: string; workspaceId: string },
): Promise<void> {
  const token = await startSession(deps.db, deps.clock, input);
  setCookie(ctx, secureCookies(deps), SESSION_COOKIE, token, SESSION_ABSOLUTE_MS / 1000);
}
