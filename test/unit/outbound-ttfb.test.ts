import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { outboundRequest } from '../../src/outbound/client';
import { measureStalls } from '../../src/outbound/loop-stall';
import { parseCidrList } from '../../src/outbound/policy';

/** Keeps this process's event loop busy for `ms`, as a long synchronous step of another audit would. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

/**
 * Time to first byte is the site's time, not ours (docs/analyzers.md, PERF_TTFB_SLOW): a response
 * that arrived while this process could not run is not made slow by it, and a slow site still is.
 */
describe('outbound time to first byte and our own stalls', function () {
  this.timeout(20_000);
  let server: http.Server;
  let origin: string;
  const allow = parseCidrList('127.0.0.0/8');

  before(async () => {
    server = http.createServer((req, res) => {
      const delay = Number(new URL(req.url!, 'http://x').searchParams.get('delay') ?? 0);
      setTimeout(() => res.end('ok'), delay);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (path: string) =>
    outboundRequest({ url: `${origin}${path}`, timeoutMs: 10_000, maxBodyBytes: 1024, allow });

  it('a prompt answer read after a one-second stall of this process is not a slow first byte', async () => {
    const pending = get('/?delay=0');
    blockLoop(1_000);
    const response = await pending;
    assert.equal(response.status, 200);
    // Without the stall taken out it reads over 1,000 ms.
    assert.ok(response.ttfbMs < 500, `ttfb ${response.ttfbMs} ms`);
    assert.ok(response.totalMs >= 1_000, `total ${response.totalMs} ms: the wall time is still reported as it was`);
  });

  it('a slow site is still slow (the control): a 700 ms wait reads 700 ms, less only our own stalls', async () => {
    // A busy machine (the test lanes run side by side) stalls this process now and then: what the
    // request takes out can only be those stalls, which this wider measurement sees too.
    const ours = measureStalls();
    const response = await get('/?delay=700');
    const stalled = ours();
    assert.ok(response.ttfbMs >= 690 - stalled, `ttfb ${response.ttfbMs} ms with ${stalled} ms of our own stalls`);
  });

  it('a stall before a measurement opens is not counted in it; one while it is open is', () => {
    const outer = measureStalls();
    blockLoop(300);
    const inner = measureStalls();
    assert.ok(inner() < 20, 'the stall ended before the inner measurement opened');
    assert.ok(outer() >= 250, 'the outer measurement was open during the stall');
    assert.throws(() => outer(), /closed once/);
  });
});
