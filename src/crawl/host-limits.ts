import type { Aborter } from './abort';
import { CRAWL_LIMITS } from './limits';

/** Per-host limiter: at most `concurrency` in flight, request starts spaced by `intervalMs`. */
class HostLimiter {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  private nextStart = 0;
  constructor(
    private readonly concurrency: number,
    private readonly intervalMs: number,
  ) {}
  async run<T>(aborter: Aborter, request: () => Promise<T>): Promise<T> {
    aborter.check();
    if (this.active >= this.concurrency) await aborter.race(new Promise<void>((resolve) => this.waiters.push(resolve)));
    this.active++;
    try {
      if (this.intervalMs > 0) {
        const now = Date.now();
        const startAt = Math.max(now, this.nextStart);
        this.nextStart = startAt + this.intervalMs;
        await aborter.sleep(startAt - now);
      }
      aborter.check();
      return await aborter.race(request());
    } finally {
      this.active--;
      this.waiters.shift()?.();
    }
  }
}

/** Requests in flight per host: of the audited site, and of any other site. */
export interface HostConcurrency {
  site: number;
  external: number;
}

/**
 * The limiters of every host the crawl talks to (host with port), created on first use: the audited
 * site's hosts get concurrencyPerHost, other sites' (external link checks) externalConcurrencyPerHost.
 */
export class HostLimits {
  private readonly limiters = new Map<string, HostLimiter>();

  /** `concurrency`: this process's share when several steps of one crawl run at once (durable crawl). */
  constructor(
    private readonly isAuditedSite: (url: URL) => boolean = () => true,
    private readonly concurrency: HostConcurrency = {
      site: CRAWL_LIMITS.concurrencyPerHost,
      external: CRAWL_LIMITS.externalConcurrencyPerHost,
    },
  ) {}

  forUrl(url: string): HostLimiter {
    const parsed = new URL(url);
    let limiter = this.limiters.get(parsed.host);
    if (!limiter) {
      const concurrency = this.isAuditedSite(parsed) ? this.concurrency.site : this.concurrency.external;
      limiter = new HostLimiter(concurrency, 0);
      this.limiters.set(parsed.host, limiter);
    }
    return limiter;
  }

  /** robots.txt asked for a Crawl-delay: one request at a time, starts spaced by the (capped) delay. */
  applyCrawlDelay(host: string, crawlDelaySeconds: number | undefined): void {
    if (crawlDelaySeconds === undefined || crawlDelaySeconds <= 0) return;
    this.limiters.set(host, new HostLimiter(1, Math.min(CRAWL_LIMITS.crawlDelayCapMs, crawlDelaySeconds * 1000)));
  }
}

/** Retry-After as milliseconds (delta-seconds or HTTP-date), capped; fallback when absent/invalid. */
export function retryAfterMs(value: string | string[] | undefined, fallbackMs: number, nowMs = Date.now()): number {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  let ms = fallbackMs;
  if (text) {
    if (/^\d+$/.test(text)) ms = Number(text) * 1000;
    else {
      const at = Date.parse(text);
      if (Number.isFinite(at)) ms = at - nowMs;
    }
  }
  return Math.min(CRAWL_LIMITS.retryAfterCapMs, Math.max(0, ms));
}
