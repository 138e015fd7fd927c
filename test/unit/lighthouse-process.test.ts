import assert from 'node:assert/strict';
import { ChromiumProcess } from '../../src/browser/chromium';
import { LighthouseProcess, LighthouseProcessEnded } from '../../src/browser/lighthouse-process';
import { startOutboundProxy, type OutboundProxy } from '../../src/browser/proxy';
import type { BrowserPageResult } from '../../src/browser/stage-result';
import { parseCidrList } from '../../src/outbound/policy';
import { RENDER_TIMEOUT_MS } from '../../src/render-timeout';
import { serveBrowserSite, type BrowserFixtureSite } from '../support/browser-sites';
import { CHROMIUM_PATH, ensureChromium } from '../support/chromium';

/**
 * Lighthouse runs in a process of its own (src/browser/lighthouse-process.ts): what it leaves behind
 * when its browser dies mid-run stays there, and a run can be ended with its process. Real Chromium,
 * real Lighthouse, a fixture server whose /never holds the request open.
 */
/** How long Lighthouse waits for /never (which never answers) before it gives up: kept short, it only delays the test. */
const NEVER_WAIT_MS = 10_000;

describe('Lighthouse in a process of its own', function () {
  this.timeout(300_000);
  let site: BrowserFixtureSite;
  let proxy: OutboundProxy;
  const lighthouse = new LighthouseProcess();
  const browsers: ChromiumProcess[] = [];
  const strayRejections: unknown[] = [];
  const onRejection = (reason: unknown) => void strayRejections.push(reason);

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    site = await serveBrowserSite();
    proxy = await startOutboundProxy({ allow: parseCidrList('127.0.0.0/8') });
    await lighthouse.start();
    process.on('unhandledRejection', onRejection);
  });
  after(async () => {
    process.off('unhandledRejection', onRejection);
    await lighthouse.stop();
    for (const browser of browsers) await browser.close();
    await proxy?.close();
    await site?.close();
  });

  async function browser(): Promise<ChromiumProcess> {
    const launched = await ChromiumProcess.launch({ executablePath: CHROMIUM_PATH, proxyUrl: proxy.url });
    browsers.push(launched);
    return launched;
  }

  /** Starts a run of /never and resolves once the page's request reached the server (a wrapper: not its outcome). */
  async function runOfNever(port: number): Promise<{ outcome: Promise<BrowserPageResult | Error> }> {
    const seen = site.requests.length;
    const run = lighthouse.measure(port, `${site.origin}/never`, NEVER_WAIT_MS).then(
      (result) => result,
      (err: Error) => err,
    );
    while (!site.requests.slice(seen).includes('/never')) await new Promise((resolve) => setTimeout(resolve, 50));
    return { outcome: run };
  }

  it('a browser killed under a run: the run answers, nothing reaches this process, the same Lighthouse process measures the next page', async () => {
    const doomed = await browser();
    const pidBefore = lighthouse.pid;
    const run = await runOfNever(doomed.port);
    process.kill(doomed.pid!, 'SIGKILL');
    const outcome = await run.outcome;
    assert.ok(
      outcome instanceof Error || outcome.status === 'unrenderable',
      `a run whose browser died is not a measurement: ${JSON.stringify(outcome)}`,
    );
    assert.ok(!(outcome instanceof LighthouseProcessEnded), 'the Lighthouse process itself survived');

    const fresh = await browser();
    const next = await lighthouse.measure(fresh.port, `${site.origin}/`, RENDER_TIMEOUT_MS);
    assert.equal(next.status, 'measured', JSON.stringify(next));
    assert.equal(lighthouse.pid, pidBefore, 'the same process went on');
    assert.deepEqual(strayRejections, [], 'no rejection of the run reached the worker process');
  });

  it('a run whose process is stopped rejects as LighthouseProcessEnded; the next run starts a new process', async () => {
    const { port } = await browser();
    const pidBefore = lighthouse.pid;
    const run = await runOfNever(port);
    await lighthouse.stop();
    const outcome = await run.outcome;
    assert.ok(outcome instanceof LighthouseProcessEnded, String(outcome));

    const next = await lighthouse.measure(port, `${site.origin}/`, RENDER_TIMEOUT_MS);
    assert.equal(next.status, 'measured', JSON.stringify(next));
    assert.notEqual(lighthouse.pid, pidBefore);
  });
});
