import { TIER_RULES } from '../accounts/tiers';
import { runAnalyzersInSlices } from '../analyzers';
import type { Config } from '../config';
import { crawlSite } from '../crawl/crawler';
import { DEFAULT_USER_AGENT } from '../outbound/client';
import { assembleAuditJson } from './assemble';
import { AuditFailure } from '../../workflows/contracts';
import type { AuditEngine } from './produce';

/**
 * Live audits: crawl the site within the tier's page budget, run every analyzer on the snapshot,
 * score and assemble the audit JSON. An unavailable data provider (DNS look-ups, the TLS probe)
 * fails the attempt so it is retried; on the last attempt the audit completes without it and the
 * analyzers that needed it report `error`.
 */
export function createLiveEngine(config: Config, crawl: typeof crawlSite = crawlSite): AuditEngine {
  return {
    async runLive(row, { startedAt, heartbeat, signal, finalAttempt, clock, onCrawled }) {
      const crawlStarted = Date.now();
      const pageBudget = TIER_RULES[row.tier].pageBudget;
      const snapshot = await crawl({
        origin: row.domain,
        pageBudget,
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
      heartbeat({ phase: 'analyzing', pages: snapshot.pages.length, analyzed: 0 });
      const { analyzers, findings, pages } = await runAnalyzersInSlices(snapshot, {
        onSlice: (analyzed) => heartbeat({ phase: 'analyzing', pages: snapshot.pages.length, analyzed }),
      });
      return assembleAuditJson({
        auditId: row.id,
        domain: row.domain,
        mode: row.mode,
        tier: row.tier,
        createdAt: new Date(row.created_at).toISOString(),
        startedAt: startedAt.toISOString(),
        completedAt: clock.now().toISOString(),
        pageBudget,
        crawlDurationMs,
        pages,
        analyzers,
        findings,
      });
    },
  };
}
