/**
 * Our side of the comparison: the audit a live audit makes, done here in-process with the same parts —
 * crawlSite, runAnalyzers and assembleAuditJson as src/audits/live-engine.ts, then the browser stage
 * (runBrowserStage on a BrowserPool over the tier's sample, as activities/browser.ts) folded in by
 * mergeBrowserStage — without the DNS look-ups and TLS probe, which a site on 127.0.0.1 cannot answer.
 */
import { runAnalyzers } from '../../src/analyzers';
import { mergeBrowserStage } from '../../src/analyzers/browser-stage';
import { assembleAuditJson } from '../../src/audits/assemble';
import type { BrowserPool } from '../../src/browser/pool';
import { samplePages } from '../../src/browser/sampling';
import { runBrowserStage } from '../../src/browser/stage';
import { crawlSite } from '../../src/crawl/crawler';
import { DEFAULT_USER_AGENT } from '../../src/outbound/client';
import type { CidrList } from '../../src/outbound/policy';
import { headerValue, type SnapshotPage } from '../../src/analyzers/snapshot';
import type { Finding, Tier } from '../../src/schemas/audit';

export interface OurAudit {
  origin: string;
  pages: readonly SnapshotPage[];
  findings: readonly Finding[];
  /** Analyzer code → status, for every analyzer that ran. */
  statuses: Record<string, string>;
  /** Final URLs of the pages the browser stage measured. */
  rendered: ReadonlySet<string>;
  performance: OurPerformance;
  crawlMs: number;
  stageMs: number;
}

export interface OurPerformance {
  score: number;
  /** `lab`: the browser stage's Lighthouse-method score; `diagnostics`: HTML-only diagnostics. */
  source: 'lab' | 'diagnostics';
}

export interface AuditOptions {
  allow: CidrList;
  pageBudget: number;
  /** Sets the browser stage's sample size (docs/analyzers.md, "Browser stage"). */
  tier: Tier;
  /** Runs the browser stage on it; without it the audit is scored as when no page could render. */
  pool: BrowserPool | null;
}

export async function auditSite(origin: string, opts: AuditOptions): Promise<OurAudit> {
  const started = new Date();
  const snapshot = await crawlSite({
    origin,
    pageBudget: opts.pageBudget,
    allow: opts.allow,
    userAgent: DEFAULT_USER_AGENT,
    lookupDns: false,
    probeTls: false,
  });
  const crawlMs = Date.now() - started.getTime();
  const { analyzers, findings, pages } = runAnalyzers(snapshot);
  const assembled = assembleAuditJson({
    auditId: 'aud_compare_lighthouse',
    domain: new URL(origin).host,
    mode: 'live',
    tier: opts.tier,
    createdAt: started.toISOString(),
    startedAt: started.toISOString(),
    completedAt: new Date().toISOString(),
    pageBudget: opts.pageBudget,
    crawlDurationMs: crawlMs,
    pages: [...pages],
    analyzers,
    findings,
  });
  const stageStarted = Date.now();
  const pool = opts.pool;
  const stage = pool
    ? await runBrowserStage(`${new URL(origin).origin}/`, {
        render: (url) => pool.render(url),
        sample: () => Promise.resolve(samplePages(snapshot.pages, opts.tier)),
      })
    : null;
  const audit = mergeBrowserStage(assembled, stage);
  return {
    origin,
    pages: snapshot.pages,
    findings: audit.findings,
    statuses: Object.fromEntries(audit.analyzers.map((a) => [a.code, a.status])),
    rendered: new Set((stage?.pages ?? []).filter((p) => p.status === 'measured').map((p) => p.url)),
    performance: {
      score: audit.categories.performance?.score ?? 0,
      source: audit.browser?.performance_basis ?? 'diagnostics',
    },
    crawlMs,
    stageMs: Date.now() - stageStarted,
  };
}

/**
 * HTML pages of the crawl worth a Lighthouse run, each final URL once: with a body (a 404 page counts),
 * reached directly or through redirects (Lighthouse runs on the final URL: a Docusaurus site on GitHub
 * Pages links `/docs/x`, which redirects to `/docs/x/`).
 */
export function comparablePages(pages: readonly SnapshotPage[]): SnapshotPage[] {
  const seen = new Set<string>();
  return pages.filter((p) => {
    if (p.body === null || !/text\/html/i.test(headerValue(p.headers, 'content-type') ?? '')) return false;
    if (seen.has(p.finalUrl)) return false;
    seen.add(p.finalUrl);
    return true;
  });
}
