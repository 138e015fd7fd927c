import type { RouterContext } from '@koa/router';
import type { Mode } from '../schemas/audit';
import type { Role } from '../people/roles';

/** Who is looking, in which workspace and which data (live or test), as the session middleware found out. */
export interface DashboardRequest {
  user: { id: string; email: string };
  session: { tokenHash: string };
  csrfToken: string;
  workspace: { id: string; accountId: string; name: string; role: Role };
  mode: Mode;
}

export interface DashboardState {
  /** Set for signed-in requests only. */
  dashboard?: DashboardRequest;
  /** From the URL: `/test/…` pages show test data. Set on every dashboard route. */
  mode: Mode;
  /** Double-submit token for the forms of signed-out visitors (sign-up, log-in, accept invitation). */
  anonymousCsrf?: string;
}

export type DashboardContext = RouterContext<DashboardState>;

/** The signed-in request; only for routes behind requireLogin (anything else is a wiring bug). */
export function signedIn(ctx: DashboardContext): DashboardRequest {
  if (!ctx.state.dashboard) throw new Error(`${ctx.method} ${ctx.path} needs a signed-in request`);
  return ctx.state.dashboard;
}

/** A dashboard path in the request's mode: `/keys` or `/test/keys`. */
export function modePath(mode: Mode, path: string): string {
  if (mode === 'live') return path;
  return path === '/' ? '/test' : `/test${path}`;
}
