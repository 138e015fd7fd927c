import { onePart, runAnalyzersOverParts } from '../analyzers';
import { foldRenderedChecks, withRenderedChecks } from '../analyzers/browser-rendered';
import type { Config } from '../config';
import { crawlSite } from '../crawl/crawler';
import { DEFAULT_USER_AGENT } from '../outbound/client';
import { assembleAuditJson } from './assemble';
import { capFindingUrls, jsonPages, pageFactsOf, urlFactsIndex } from './exact-lists';
import { AuditFailure } from '../../workflows/contracts';
import type { AttemptContext, AuditEngine, FinishedCrawl, ProducedAudit } from './produce';
import type { AuditRow } from './repository';
import type { Clock } from '../clock';

/**
 * Live audits in one process: crawl the site within the tier's page budget, then analyse it
 * (analyzeCrawl). Tools and benches run it; the workers' audits crawl in durable steps
 * (src/crawl/durable) and analyse the stored crawl the same way.
 */
export function createLiveEngine(config: Config, crawl: typeof crawlSite = crawlSite): AuditEngine {
  return {
    async runLive(row, context) {
      const crawlStarted = Date.now();
      const snapshot = await crawl({
        origin: row.domain,
        pageBudget: config.pageBudgets[row.tier],
        externalCheckBudget: config.externalCheckBudget,
        allow: config.outboundAllow,
        userAgent: DEFAULT_USER_AGENT,
        onProgress: (progress) => context.heartbeat(progress),
        signal: context.signal,
      });
      const bodies = (async function* () {
        for (const page of snapshot.pages) yield page.body;
      })();
      const crawled = { snapshot, parts: onePart(bodies), crawlDurationMs: Date.now() - crawlStarted };
      return analyzeCrawl(config, row, crawled, context);
    },
    analyze: (row, crawl, context) => analyzeCrawl(config, row, crawl, context),
  };
}

/**
 * Runs every analyzer on a finished crawl, scores and assembles the audit JSON, with the facts stored
 * beside it (every page, every URL of every finding). An unavailable data provider (DNS look-ups,
 * the TLS probe) fails the attempt so it is retried; on the last attempt the audit completes without
 * it and the analyzers that needed it report `error`.
 */
export async function analyzeCrawl(
  config: Config,
  row: AuditRow,
  crawl: FinishedCrawl,
  { startedAt, heartbeat, finalAttempt, clock, onCrawled }: AttemptContext & { startedAt: Date; clock: Clock },
): Promise<ProducedAudit> {
  const { snapshot } = crawl;
  await onCrawled?.(snapshot.pages);
  const outage = [snapshot.dns, snapshot.tls].find((facts) => facts && !facts.ok);
  if (outage && !outage.ok && !finalAttempt) {
    throw new AuditFailure('audit_provider_unavailable', `a data provider did not answer: ${outage.error}`);
  }
  // The analysis yields between slices of pages, so heartbeats keep going out while it runs.
  const pagesCrawled = snapshot.pages.length;
  const analyzing = () =>
    heartbeat({ phase: 'analyzing', pagesCrawled, pagesDiscovered: snapshot.pagesDiscovered ?? pagesCrawled });
  analyzing();
  // With render: "all", the rendered-DOM analyzers are judged on every rendered page (docs/analyzers.md).
  const analysis = withRenderedChecks(
    await runAnalyzersOverParts(snapshot, crawl.parts, { onSlice: analyzing }),
    crawl.renderedChecks ? await foldRenderedChecks(crawl.renderedChecks) : null,
  );
  // Each step below is a pass over every page: the event loop (and the heartbeat) gets a turn between them.
  const pages = pageFactsOf(analysis.pages);
  await beat(analyzing);
  const { findings, findingUrls } = capFindingUrls(analysis.findings, urlFactsIndex(pages, snapshot));
  await beat(analyzing);
  const audit = assembleAuditJson({
    auditId: row.id,
    domain: row.domain,
    mode: row.mode,
    tier: row.tier,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: startedAt.toISOString(),
    completedAt: clock.now().toISOString(),
    pageBudget: config.pageBudgets[row.tier],
    crawlDurationMs: crawl.crawlDurationMs,
    pages: jsonPages(analysis.pages),
    pagesCrawled: analysis.pages.length,
    ...(snapshot.pagesDiscovered !== undefined ? { pagesDiscovered: snapshot.pagesDiscovered } : {}),
    ...(snapshot.budgetExhausted !== undefined ? { budgetExhausted: snapshot.budgetExhausted } : {}),
    analyzers: analysis.analyzers,
    findings,
  });
  return { audit, facts: { pages, findingUrls } };
}

function beat(heartbeat: () => void): Promise<void> {
  heartbeat();
  return new Promise((resolve) => setImmediate(resolve));
}
