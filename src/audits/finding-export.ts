import type { Db } from '../db/knex';
import type { Finding } from '../schemas/audit';
import { countFindingUrls, iterateFindingUrls } from './crawl-facts-store';

/** A row of findings.csv: the finding's fields from the audit JSON, one of its stored URLs. */
export interface FindingExportRow {
  finding_id: string;
  analyzer: string;
  category: string;
  severity: string;
  title: string;
  /** How many URLs the finding affects: its `count`, else the URLs stored for it. */
  count: number;
  url: string | null;
  depth: number | null;
  referrers: number | null;
}

/**
 * The rows of findings.csv: the findings in the order of the audit JSON, each with every URL stored
 * for it in audit_finding_urls (read in chunks), or one row with no URL when it has none.
 */
export async function* findingExportRows(
  db: Db,
  auditId: string,
  findings: readonly Finding[],
): AsyncGenerator<FindingExportRow> {
  const counts = await countFindingUrls(db, auditId);
  for (const finding of findings) {
    const stored = counts.get(finding.id) ?? 0;
    const fields = {
      finding_id: finding.id,
      analyzer: finding.analyzer,
      category: finding.category,
      severity: finding.severity,
      title: finding.title,
      count: finding.count ?? stored,
    };
    if (stored === 0) {
      yield { ...fields, url: null, depth: null, referrers: null };
      continue;
    }
    for await (const url of iterateFindingUrls(db, auditId, finding.id)) {
      yield { ...fields, url: url.url, depth: url.depth, referrers: url.referrers };
    }
  }
}
