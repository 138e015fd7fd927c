import { TIER_RULES } from '../accounts/tiers';
import { runAnalyzers } from '../analyzers';
import type { Config } from '../config';
import { crawlFirstLook } from '../crawl/first-look';
import { DEFAULT_USER_AGENT } from '../outbound/client';
import { parseCidrList } from '../outbound/policy';
import { assembleAuditJson } from './assemble';
import type { AuditEngine } from './produce';

/** Live audits: crawl the site, run the analyzers on the snapshot, score and assemble the JSON. */
export function createLiveEngine(config: Config): AuditEngine {
  const allow = parseCidrList(config.outboundAllowCidrs);
  return {
    async runLive(row, { startedAt, heartbeat, clock }) {
      const crawlStarted = Date.now();
      const snapshot = await crawlFirstLook({ origin: row.domain, allow, userAgent: DEFAULT_USER_AGENT });
      heartbeat();
      const crawlDurationMs = Date.now() - crawlStarted;
      const { analyzers, findings, pages } = runAnalyzers(snapshot);
      return assembleAuditJson({
        auditId: row.id,
        domain: row.domain,
        mode: row.mode,
        tier: row.tier,
        createdAt: new Date(row.created_at).toISOString(),
        startedAt: startedAt.toISOString(),
        completedAt: clock.now().toISOString(),
        pageBudget: TIER_RULES[row.tier].pageBudget,
        crawlDurationMs,
        pages,
        analyzers,
        findings,
      });
    },
  };
}
