import Router from '@koa/router';
import type { ApiState } from '../context';

/** The public mock receiver test-mode deliveries go to: answers 200 at once. */
export function mockReceiverRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  router.post('/mock/webhooks', (ctx) => {
    ctx.body = { received: true };
  });
  return router;
}
