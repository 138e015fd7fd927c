import type Koa from 'koa';
import { roleAtLeast, type Role } from '../people/roles';
import { renderStatus } from './render';
import type { DashboardContext, DashboardState } from './state';

/** Signed-out visitors of a page are sent to the log-in page, and back afterwards. */
export const requireLogin: Koa.Middleware<DashboardState> = async (ctx, next) => {
  if (!ctx.state.dashboard) {
    const back = ctx.method === 'GET' ? `?next=${encodeURIComponent(ctx.path)}` : '';
    ctx.redirect(`/login${back}`);
    return;
  }
  await next();
};

/** The workspace role a route needs (owner > developer > viewer); others get 403. */
export function requireRole(minimum: Role): Koa.Middleware<DashboardState> {
  return async (ctx, next) => {
    const role = ctx.state.dashboard?.workspace.role;
    if (!role || !roleAtLeast(role, minimum)) {
      renderStatus(
        ctx as DashboardContext,
        403,
        'You do not have access to this',
        `This needs the ${minimum} role or higher in this workspace. Ask an owner of the workspace.`,
      );
      return;
    }
    await next();
  };
}

/** Whether the signed-in user may use controls that need this role (hides buttons they could not use). */
export function may(ctx: DashboardContext, minimum: Role): boolean {
  const role = ctx.state.dashboard?.workspace.role;
  return !!role && roleAtLeast(role, minimum);
}
