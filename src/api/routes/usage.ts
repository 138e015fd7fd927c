import Router from '@koa/router';
import { presentUsage } from '../../presenters/usage';
import { caller, type ApiState } from '../context';

export function usageRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  // The auth layer already read the account's usage for the rate-limit headers.
  router.get('/usage', (ctx) => {
    ctx.body = presentUsage(caller(ctx).usage);
  });
  return router;
}
