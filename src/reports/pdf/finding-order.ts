import { catalogIndex, SEVERITY_RANK } from '../../analyzers/catalog';
import type { Finding } from '../../schemas/audit';

/** Most severe first, then catalog order, then most pages affected, then id. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    catalogIndex(a.analyzer) - catalogIndex(b.analyzer) ||
    b.urls.length - a.urls.length ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** The `n` most severe issues, one per analyzer. */
export function topIssues(findings: readonly Finding[], n: number): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...findings].sort(compareFindings)) {
    if (f.severity === 'info' || seen.has(f.analyzer)) continue;
    seen.add(f.analyzer);
    out.push(f);
    if (out.length === n) break;
  }
  return out;
}
