import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Koa from 'koa';
import Router from '@koa/router';
import { createLogger } from '../../src/observability/logger';
import { temporalLogger } from '../../src/observability/temporal-runtime';
import { routeLabel } from '../../src/api/middleware/observe';

/** A logger whose JSON lines are kept in `lines`. */
function capturedLogger(level = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { log: createLogger({ level, destination }), lines };
}

describe('observability: logger', () => {
  it('never writes keys, secrets, passwords, tokens, cookies or Authorization headers', () => {
    const { log, lines } = capturedLogger();
    const secrets = ['sk_live_SECRETKEY1', 'whsec_SECRET2', 'hunter2-PASSWORD', 'sess_TOKEN3', 'cookie=SESSION4'];
    log.info(
      { key: secrets[0], secret: secrets[1], password: secrets[2], token: secrets[3], cookie: secrets[4] },
      'top',
    );
    log.info(
      {
        err: { headers: { authorization: `Bearer ${secrets[0]}`, cookie: secrets[4] } },
        webhook: { secret: secrets[1] },
        user: { password: secrets[2], sessionToken: secrets[3] },
      },
      'nested',
    );
    assert.equal(lines.length, 2);
    const text = lines.join('\n');
    for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    const top = JSON.parse(lines[0]);
    assert.equal(top.key, '[redacted]');
    assert.equal(top.msg, 'top');
    assert.equal(JSON.parse(lines[1]).err.headers.authorization, '[redacted]');
  });

  it('logs at LOG_LEVEL and above only', () => {
    const { log, lines } = capturedLogger('warn');
    log.info('not this');
    log.warn('this');
    assert.deepEqual(
      lines.map((line) => JSON.parse(line).msg),
      ['this'],
    );
  });

  it("passes the Temporal SDK's messages on with their metadata, without task tokens", () => {
    const { log, lines } = capturedLogger('debug');
    const sdkLog = temporalLogger(log);
    sdkLog.info('Activity completed', {
      workflowId: 'audit-1',
      workflowRunId: 'run-1',
      activityType: 'runAudit',
      activityId: '3',
      taskToken: 'TOKEN-BYTES',
    });
    sdkLog.log('WARN', 'slow');
    sdkLog.trace('below the level');
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0]);
    assert.equal(first.level, 30);
    assert.deepEqual(
      [first.workflowId, first.workflowRunId, first.activityType, first.activityId],
      ['audit-1', 'run-1', 'runAudit', '3'],
    );
    assert.ok(!lines[0].includes('TOKEN-BYTES'));
    assert.equal(JSON.parse(lines[1]).level, 40);
  });
});

describe('observability: route labels', () => {
  it('labels a request by the route template, never its URL', async () => {
    const app = new Koa();
    const seen: string[] = [];
    app.use(async (ctx, next) => {
      await next();
      seen.push(routeLabel(ctx));
    });
    const v1 = new Router({ prefix: '/v1' });
    v1.use(async (ctx, next) => {
      if (ctx.get('x-deny')) ctx.status = 401;
      else await next();
    });
    v1.get('/audits/:id', (ctx) => (ctx.body = ctx.params.id));
    app.use(v1.routes());
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await fetch(`${base}/v1/audits/aud_123`);
      await fetch(`${base}/v1/audits/aud_456`, { headers: { 'x-deny': '1' } });
      await fetch(`${base}/nothing/here/aud_789`);
    } finally {
      server.close();
    }
    assert.equal(seen[0], '/v1/audits/:id');
    assert.ok(!seen[1].includes('aud_456'), seen[1]);
    assert.equal(seen[2], 'unmatched');
  });
});
