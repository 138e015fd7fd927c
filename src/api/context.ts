import type { RouterContext } from '@koa/router';
import type { KeyIdentity } from '../accounts/repository';
import type { Usage } from '../accounts/usage';

/** What the middleware chain learns about a request, for the handlers after it. */
export interface ApiState {
  requestId: string;
  identity?: KeyIdentity;
  usage?: Usage;
}

export type ApiContext = RouterContext<ApiState>;
