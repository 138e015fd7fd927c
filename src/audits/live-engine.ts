import { runAnalyzersInSlices } from '../analyzers';
import type { Config } from '../config';
import { crawlSite } from '../crawl/crawler';
import { DEFAULT_USER_AGENT } from '../outbound/client';
import { assembleAuditJson } from './assemble';
import { capFindingUrls, jsonPages, pageFactsOf, urlFactsIndex } from './exact-lists';
import { AuditFailure } from '../../workflows/contracts';
import type { AuditEngine } from './produce';

/**
 * Live audits: crawl the site within the tier's page budget, run every analyzer on the snapshot,
 * score and assemble the audit JSON, with the facts stored beside it (every page, every URL of every
 * finding). An unavailable data provider (DNS look-ups, the TLS probe) fails the attempt so it is
 * retried; on the last attempt the audit completes without it and the analyzers that needed it
 * report `error`.
 */
export function createLiveEngine(config: Config, crawl: typeof crawlSite = crawlSite): AuditEngine {
  return {
    async runLive(row, { startedAt, heartbeat, signal, finalAttempt, clock, onCrawled }) {
      const crawlStarted = Date.now();
      const pageBudget = config.pageBudgets[row.tier];
      const snapshot = await crawl({
        origin: row.domain,
        pageBudget,
        externalCheckBudget: config.externalCheckBudget,
        allow: config.outboundAllow,
        userAgent: DEFAULT_USER_AGENT,
        onProgress: (progress) => heartbeat(progress),
        signal,
      });
      const crawlDurationMs = Date.now() - crawlStarted;
      await onCrawled?.(snapshot.pages);
      const outage = [snapshot.dns, snapshot.tls].find((facts) => facts && !facts.ok);
      if (outage && !outage.ok && !finalAttempt) {
        throw new AuditFailure('audit_provider_unavailable', `a data provider did not answer: ${outage.error}`);
      }
      // The analysis yields between slices of pages, so heartbeats keep going out while it runs.
      const analyzing = (pagesCrawled: number) =>
        heartbeat({ phase: 'analyzing', pagesCrawled, pagesDiscovered: snapshot.pagesDiscovered ?? pagesCrawled });
      analyzing(snapshot.pages.length);
      const analysis = await runAnalyzersInSlices(snapshot, { onSlice: () => analyzing(snapshot.pages.length) });
      const pages = pageFactsOf(analysis.pages);
      const { findings, findingUrls } = capFindingUrls(analysis.findings, urlFactsIndex(pages, snapshot));
      const audit = assembleAuditJson({
        auditId: row.id,
        domain: row.domain,
        mode: row.mode,
        tier: row.tier,
        createdAt: new Date(row.created_at).toISOString(),
        startedAt: startedAt.toISOString(),
        completedAt: clock.now().toISOString(),
        pageBudget,
        crawlDurationMs,
        pages: jsonPages(analysis.pages),
        pagesCrawled: analysis.pages.length,
        ...(snapshot.pagesDiscovered !== undefined ? { pagesDiscovered: snapshot.pagesDiscovered } : {}),
        ...(snapshot.budgetExhausted !== undefined ? { budgetExhausted: snapshot.budgetExhausted } : {}),
        analyzers: analysis.analyzers,
        findings,
      });
      return { audit, facts: { pages, findingUrls } };
    },
  };
}
