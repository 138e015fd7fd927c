import type { RouterContext } from '@koa/router';
import type { KeyIdentity } from '../accounts/repository';
import type { Usage } from '../accounts/usage';
import type { Mode } from '../schemas/audit';
import type { WindowPosition } from './rate-limit-fields';

/** What the middleware chain learns about a request, for the handlers after it. */
export interface ApiState {
  requestId: string;
  identity?: KeyIdentity;
  usage?: Usage;
  /** Where the burst or retrieval window that applied to this request stands (the RateLimit field). */
  rateWindow?: WindowPosition;
}

export type ApiContext = RouterContext<ApiState>;

/** What a key may see: its workspace, in its environment (test keys test data, live keys live data). */
export interface Scope {
  workspaceId: string;
  mode: Mode;
}

/**
 * Who is calling, as the auth middleware found out: the key, the scope it sees and its account's
 * usage. Only for routes behind authentication; anything else is a wiring bug (500).
 */
export function caller(ctx: ApiContext): { identity: KeyIdentity; scope: Scope; usage: Usage } {
  const { identity, usage } = ctx.state;
  if (!identity || !usage) throw new Error(`${ctx.method} ${ctx.path} needs an authenticated request`);
  return { identity, scope: { workspaceId: identity.workspaceId, mode: identity.mode }, usage };
}
