import type Router from '@koa/router';
import type { RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import type { DashboardState } from './state';

type Handler = Koa.Middleware<DashboardState>;

/**
 * Registers a page under both data modes: `/keys` (live data) and `/test/keys` (test data). The
 * session middleware reads the mode from the prefix; handlers see it as ctx.state.mode.
 */
export interface PageRoutes {
  get(path: string, ...handlers: Handler[]): void;
  post(path: string, ...handlers: Handler[]): void;
}

export function pageRoutes(router: Router<DashboardState>): PageRoutes {
  const both = (method: 'get' | 'post', path: string, handlers: Handler[]) => {
    router[method](path, ...(handlers as RouterMiddleware<DashboardState>[]));
    router[method](path === '/' ? '/test' : `/test${path}`, ...(handlers as RouterMiddleware<DashboardState>[]));
  };
  return {
    get: (path, ...handlers) => both('get', path, handlers),
    post: (path, ...handlers) => both('post', path, handlers),
  };
}
