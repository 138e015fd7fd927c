/**
 * Runs Lighthouse 13 (all categories, its default mobile emulation and simulated throttling) on
 * pages, in Debian's Chromium launched once through chrome-launcher. Lighthouse and chrome-launcher
 * are ES modules, loaded with dynamic import from this CommonJS project.
 */
import { CHROMIUM_FLAGS } from '../../src/browser/chromium';
import type { LhAudit } from './checks';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** What we keep of one Lighthouse report. */
export interface LighthousePage {
  url: string;
  /**
   * Where Lighthouse ended (lhr.finalDisplayedUrl), when not `url`: the page's own script or meta
   * refresh took it elsewhere, so it judged another page than ours (bench/compare/pairs.ts).
   */
  finalUrl?: string;
  /** Category id → score 0–100 (null when Lighthouse could not compute it). */
  categories: Record<string, number | null>;
  audits: Record<string, LhAudit>;
  /** A run-level error (page not loaded), in which case the audits are unreliable. */
  runtimeError?: string;
  durationMs: number;
}

interface LhResult {
  lhr: {
    finalDisplayedUrl?: string;
    categories: Record<string, { score: number | null }>;
    audits: Record<
      string,
      {
        score: number | null;
        scoreDisplayMode: string;
        errorMessage?: string;
        details?: { items?: Array<{ sourceLocation?: { url?: string }; url?: unknown }> };
      }
    >;
    runtimeError?: { code: string; message: string };
  };
}
type LighthouseFn = (url: string, flags: Record<string, unknown>) => Promise<LhResult | undefined>;
interface LaunchedChrome {
  port: number;
  kill(): void | Promise<void>;
}

export interface LighthouseRunner {
  run(url: string): Promise<LighthousePage>;
  close(): Promise<void>;
}

/**
 * Loopback sites only: any other host fails at once, as our stage's outbound proxy refuses it
 * (src/browser/chromium.ts PROXY_ONLY_FLAGS), so a third-party CDN a real site links to is missing on
 * both sides alike instead of loaded by one and refused by the other (or waited for until DNS gives up).
 */
export const LOOPBACK_ONLY_FLAGS = ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];

/** Chromium is launched on the first run, so a comparison answered from a cache starts no browser. */
export function startLighthouse(extraFlags: readonly string[] = []): LighthouseRunner {
  let chrome: Promise<{ lighthouse: LighthouseFn; chrome: LaunchedChrome }> | undefined;
  const launch = async () => {
    const { default: lighthouse } = (await import('lighthouse')) as unknown as { default: LighthouseFn };
    const launcher = (await import('chrome-launcher')) as unknown as {
      launch(o: { chromePath: string; chromeFlags: string[] }): Promise<LaunchedChrome>;
    };
    const chromeFlags = [...CHROMIUM_FLAGS, ...extraFlags];
    return { lighthouse, chrome: await launcher.launch({ chromePath: CHROMIUM_PATH, chromeFlags }) };
  };
  return {
    async run(url) {
      chrome ??= launch();
      const { lighthouse, chrome: browser } = await chrome;
      const started = performance.now();
      // ignoreStatusCode: a 404 page is audited like any other (http-status-code is one of the checks).
      const result = await lighthouse(url, { port: browser.port, logLevel: 'error', ignoreStatusCode: true });
      if (!result) throw new Error(`Lighthouse returned no result for ${url}`);
      return summarise(url, result.lhr, Math.round(performance.now() - started));
    },
    close: async () => {
      if (chrome) await (await chrome).chrome.kill();
    },
  };
}

function summarise(url: string, lhr: LhResult['lhr'], durationMs: number): LighthousePage {
  const categories: Record<string, number | null> = {};
  for (const [id, c] of Object.entries(lhr.categories))
    categories[id] = c.score === null ? null : Math.round(c.score * 100);
  const audits: Record<string, LhAudit> = {};
  for (const [id, a] of Object.entries(lhr.audits)) {
    // Not every details object is a table (debug data carries an object).
    const items = Array.isArray(a.details?.items) ? a.details.items : [];
    const itemUrls = items.flatMap((i) => {
      const url = i.sourceLocation?.url ?? i.url;
      return typeof url === 'string' ? [url] : [];
    });
    audits[id] = {
      score: a.score,
      scoreDisplayMode: a.scoreDisplayMode,
      errorMessage: a.errorMessage,
      items: items.length,
      itemUrls,
    };
  }
  const runtimeError = lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : undefined;
  const moved = lhr.finalDisplayedUrl && lhr.finalDisplayedUrl !== url ? { finalUrl: lhr.finalDisplayedUrl } : {};
  return { url, ...moved, categories, audits, runtimeError, durationMs };
}
