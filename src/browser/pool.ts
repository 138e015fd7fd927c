import type { CidrList } from '../outbound/policy';
import { RENDER_TIMEOUT_MS } from '../render-timeout';
import { ChromiumProcess } from './chromium';
import { renderDom, type DomRender } from './dom-render';
import { LighthouseProcess, LighthouseProcessEnded } from './lighthouse-process';
import { startOutboundProxy, type BrowserRefusal, type OutboundProxy } from './proxy';
import type { BrowserPageResult, LabMetrics } from './stage-result';
import { renderSteadily } from './steady-score';

export interface BrowserPoolOptions {
  executablePath: string;
  /** Pages rendered at once, one Chromium each (BROWSER_CONCURRENCY; 1 on a small machine). */
  size: number;
  allow: CidrList;
  onRefused?: (entry: BrowserRefusal) => void;
  /** Renders a page with the browser on `port`; Lighthouse unless a test or bench says otherwise. */
  measure?: (port: number, url: string) => Promise<BrowserPageResult>;
  /**
   * The audit's score of a page's lab metrics (src/analyzers/lab-scoring.ts, given by the composition
   * root: this folder does not import the analyzers). With it a page scoring near a grade boundary is
   * rendered up to three times and its median run kept (steady-score.ts).
   */
  performanceScore?: (metrics: LabMetrics) => number;
  /** How long a page may take to paint and load (BROWSER_RENDER_TIMEOUT_MS; RENDER_TIMEOUT_MS, its most, by default). */
  renderTimeoutMs?: number;
}

interface Slot {
  browser: ChromiumProcess | null;
  /** Where this slot's Lighthouse runs (lighthouse-process.ts). */
  lighthouse: LighthouseProcess;
  busy: boolean;
}

/**
 * Warm headless Chromiums shared by every page and audit of a worker: starting one costs about a
 * second, so they are started once and kept. At most `size` pages render at once; a browser that
 * crashed (or a run stuck past the hard time-out) is replaced before the next page.
 */
export class BrowserPool {
  private readonly slots: Slot[];
  private readonly waiters: Array<(slot: Slot) => void> = [];
  private proxy: Promise<OutboundProxy> | null = null;
  /** Aborted by close(): renders under way stop waiting for their browser. */
  private readonly closing = new AbortController();
  private closed: Promise<void> | null = null;
  private readonly renderTimeoutMs: number;
  /** Beyond Lighthouse's own waits for paint and load: the run itself is stuck, the browser is replaced. */
  private readonly hardTimeoutMs: number;

  constructor(private readonly opts: BrowserPoolOptions) {
    this.renderTimeoutMs = Math.min(opts.renderTimeoutMs ?? RENDER_TIMEOUT_MS, RENDER_TIMEOUT_MS);
    this.hardTimeoutMs = 2 * this.renderTimeoutMs + 15_000;
    this.slots = Array.from({ length: Math.max(1, opts.size) }, () => ({
      browser: null,
      lighthouse: new LighthouseProcess(),
      busy: false,
    }));
  }

  /** Starts the proxy, the browsers and their Lighthouse processes now, so the first page does not wait for them. */
  async warm(): Promise<void> {
    await Promise.all(
      this.slots.map((slot) => Promise.all([this.browserOf(slot), this.opts.measure ? null : slot.lighthouse.start()])),
    );
  }

  /** Chromium process ids (for the bench's memory figures). */
  pids(): number[] {
    return this.slots.flatMap((slot) => (slot.browser?.pid !== undefined ? [slot.browser.pid] : []));
  }

  /** DevTools ports of the browsers, started if need be (the bench runs plain Lighthouse beside the stage). */
  async ports(): Promise<number[]> {
    return Promise.all(this.slots.map(async (slot) => (await this.browserOf(slot)).port));
  }

  /** Renders one page (several runs near a grade boundary); never throws for the page's own sake. */
  render(url: string): Promise<BrowserPageResult> {
    const score = this.opts.performanceScore;
    return score ? renderSteadily((u) => this.renderOnce(u), url, score) : this.renderOnce(url);
  }

  /** One run on the next free browser. */
  private async renderOnce(url: string): Promise<BrowserPageResult> {
    const slot = await this.acquire();
    try {
      return await this.renderOn(slot, url, true);
    } finally {
      this.release(slot);
    }
  }

  /**
   * A page's DOM once its scripts have run (application shells, docs/architecture.md "Durable crawl"),
   * on the next free browser; never throws for the page's own sake. A browser that crashed under it
   * is replaced and the page tried once more; one stuck past the hard time-out is replaced. With
   * `checks` (`render: "all"`) the page's rendered-DOM checks come with it.
   */
  async renderDom(url: string, options: { checks?: boolean } = {}): Promise<DomRender> {
    const slot = await this.acquire();
    try {
      for (let attempt = 1; ; attempt++) {
        const browser = await this.browserOf(slot);
        let timer: NodeJS.Timeout | undefined;
        const stuck = new Promise<'stuck'>(
          (resolve) => (timer = setTimeout(() => resolve('stuck'), this.hardTimeoutMs)),
        );
        try {
          const rendering = renderDom(browser.port, url, { ...options, timeoutMs: this.renderTimeoutMs });
          const outcome = await Promise.race([rendering, stuck]);
          if (outcome !== 'stuck') return outcome;
          await this.replace(slot);
          return { status: 'unrenderable', reason: this.stuckReason() };
        } catch (err) {
          if (this.closing.signal.aborted) throw new PoolClosedError();
          const crashed = !browser.running;
          await this.replace(slot);
          if (crashed && attempt === 1) continue;
          return {
            status: 'unrenderable',
            reason: crashed ? 'the browser crashed while rendering the page' : (err as Error).message,
          };
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      this.release(slot);
    }
  }

  /** Closes the browsers at once, also under a page being rendered (that render rejects). Idempotent. */
  close(): Promise<void> {
    this.closing.abort();
    this.closed ??= (async () => {
      await Promise.all(this.slots.flatMap((slot) => [slot.browser?.close(), slot.lighthouse.stop()]));
      if (this.proxy) await (await this.proxy).close();
    })();
    return this.closed;
  }

  private async renderOn(slot: Slot, url: string, retryOnCrash: boolean): Promise<BrowserPageResult> {
    const browser = await this.browserOf(slot);
    const measure =
      this.opts.measure ?? ((port: number, page: string) => slot.lighthouse.measure(port, page, this.renderTimeoutMs));
    let timer: NodeJS.Timeout | undefined;
    let onClose: (() => void) | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), this.hardTimeoutMs);
    });
    // Lighthouse may wait out its own time-outs after the browser is gone: closing does not wait for it.
    const closed = new Promise<'closed'>((resolve) => {
      onClose = () => resolve('closed');
      this.closing.signal.addEventListener('abort', onClose, { once: true });
    });
    try {
      const outcome = await Promise.race([measure(browser.port, url), stuck, closed]);
      if (outcome === 'closed') throw new PoolClosedError();
      if (outcome !== 'stuck') return outcome;
      // The stuck run ends with its Lighthouse process rather than going on beside the next page.
      await Promise.all([this.replace(slot), slot.lighthouse.stop()]);
      return {
        url,
        status: 'unrenderable',
        reason: this.stuckReason(),
      };
    } catch (err) {
      // Not the page's doing: the activity fails and is handed back.
      if (this.closing.signal.aborted) throw new PoolClosedError();
      // The browser (or Lighthouse's process) crashed under the page: once more on a fresh one, then it is the page.
      const crashed = !browser.running || err instanceof LighthouseProcessEnded;
      await this.replace(slot);
      if (crashed && retryOnCrash) return this.renderOn(slot, url, false);
      const reason = crashed ? 'the browser crashed while rendering the page' : (err as Error).message;
      return { url, status: 'unrenderable', reason };
    } finally {
      clearTimeout(timer);
      this.closing.signal.removeEventListener('abort', onClose!);
    }
  }

  private stuckReason(): string {
    return `the page did not finish rendering in ${this.hardTimeoutMs / 1000} s`;
  }

  private async browserOf(slot: Slot): Promise<ChromiumProcess> {
    if (this.closing.signal.aborted) throw new PoolClosedError();
    if (slot.browser?.running) return slot.browser;
    this.proxy ??= startOutboundProxy({ allow: this.opts.allow, onRefused: this.opts.onRefused });
    const proxy = await this.proxy;
    const browser = await ChromiumProcess.launch({ executablePath: this.opts.executablePath, proxyUrl: proxy.url });
    // Closed while it was starting: close() did not see it.
    if (this.closing.signal.aborted) {
      await browser.close();
      throw new PoolClosedError();
    }
    slot.browser = browser;
    return browser;
  }

  private async replace(slot: Slot): Promise<void> {
    const old = slot.browser;
    slot.browser = null;
    await old?.close();
  }

  private acquire(): Promise<Slot> {
    const free = this.slots.find((slot) => !slot.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(slot: Slot): void {
    const next = this.waiters.shift();
    if (next) next(slot);
    else slot.busy = false;
  }
}

export class PoolClosedError extends Error {
  constructor() {
    super('the browser pool is closed');
    this.name = 'PoolClosedError';
  }
}
