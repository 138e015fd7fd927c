import { randomUUID } from 'node:crypto';
import type { FindingUrlFact, PageFact } from '../../src/audits/crawl-facts';
import { replaceCrawlFacts } from '../../src/audits/crawl-facts-store';
import { syntheticAudit } from '../../src/audits/synthetic';
import { syntheticCrawlFacts } from '../../src/audits/synthetic/crawl-facts';
import { publishChange } from '../../src/db/change-feed';
import { comparisonBasis } from '../../src/monitoring/basis';
import type { AuditJson, Mode } from '../../src/schemas/audit';
import { getStack } from './stack';

/**
 * Completed audits written straight to Postgres for the dashboard's tests: a synthetic result
 * (changed as the test needs), its comparison basis, and crawl facts of the test's choosing.
 */
export interface StoredAudit {
  auditId: string;
  audit: AuditJson;
}

export async function storeCompletedAudit(opts: {
  workspaceId: string;
  accountId: string;
  mode: Mode;
  domain: string;
  completedAt?: Date;
  change?: (audit: AuditJson) => void;
  pages?: PageFact[];
  findingUrls?: FindingUrlFact[];
}): Promise<StoredAudit> {
  const { db } = await getStack();
  const auditId = `aud_DV${randomUUID().replace(/-/g, '').slice(0, 22).toUpperCase()}`;
  const at = (opts.completedAt ?? new Date()).toISOString();
  const audit = proSyntheticAudit(auditId, opts.workspaceId, opts.domain, at);
  opts.change?.(audit);
  await db('audits').insert({
    id: auditId,
    workspace_id: opts.workspaceId,
    account_id: opts.accountId,
    mode: opts.mode,
    domain: opts.domain,
    site_key: new URL(opts.domain).hostname,
    tier: 'pro',
    status: 'completed',
    score: audit.score,
    grade: audit.grade,
    charged: false,
    result_json: JSON.stringify(audit),
    comparison_basis: JSON.stringify(comparisonBasis(audit)),
    created_at: at,
    completed_at: at,
  });
  const facts = syntheticCrawlFacts(audit);
  await replaceCrawlFacts(db, auditId, {
    pages: opts.pages ?? facts.pages,
    findingUrls: opts.findingUrls ?? facts.findingUrls,
  });
  await publishChange(db, { kind: 'audit', id: auditId });
  return { auditId, audit };
}

/**
 * `count` pages with ties in every sortable column (so the order's tie-break by crawl position is
 * exercised), statuses of each class and none, and depths unknown now and then.
 */
export function generatedPages(domain: string, count: number): PageFact[] {
  return Array.from({ length: count }, (_, i): PageFact => {
    const status = i % 17 === 5 ? null : i % 11 === 3 ? 404 : i % 13 === 4 ? 500 : i % 7 === 2 ? 301 : 200;
    const indexable = status === 200 && i % 5 !== 0;
    const url = `${domain}/${['guides', 'shop', 'blog'][i % 3]}/item-${(i * 37) % count}`;
    return {
      url,
      status,
      depth: i === 0 ? 0 : i % 19 === 6 ? null : 1 + (i % 4),
      inlinks: i % 6,
      outlinks: i % 9,
      title: status === 200 ? `Item ${i}` : null,
      content_type: status === null ? null : 'text/html; charset=utf-8',
      bytes: 1000 * (i % 8),
      response_ms: 10 * (i % 10),
      indexable,
      canonical: indexable ? url : null,
      redirect_to: status === 301 ? `${url}/` : null,
    };
  });
}

/**
 * A domain of `example.com` whose synthetic audits in this workspace have at least `findings` distinct
 * findings: the synthetic site is drawn from the workspace and the domain, and about 1 in 40 is
 * nearly clean.
 */
export function domainWithFindings(workspaceId: string, name: string, findings: number): string {
  const at = new Date().toISOString();
  for (let n = 1; n <= 50; n++) {
    const domain = `https://${name}${n === 1 ? '' : n}.example.com`;
    const audit = proSyntheticAudit('aud_DVPROBE', workspaceId, domain, at);
    if (new Set(audit.findings.map((f) => f.fingerprint)).size >= findings) return domain;
  }
  throw new Error(`no ${name}…example.com has ${findings} synthetic findings in workspace ${workspaceId}`);
}

/** The synthetic result of a pro audit created, started and completed at `at`. */
function proSyntheticAudit(auditId: string, workspaceId: string, domain: string, at: string): AuditJson {
  return syntheticAudit({ auditId, workspaceId, domain, tier: 'pro', createdAt: at, startedAt: at, completedAt: at });
}
