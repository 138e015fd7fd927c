import { createHash } from 'node:crypto';
import type { AnalyzerResult, AnalyzerStatus, Finding } from '../schemas/audit';
import { catalogEntry } from './catalog';
import { findingFingerprint } from '../monitoring/fingerprint';
import { analyzerWeight } from './scoring';
import { EVIDENCE_MAX, type FindingDraft } from './types';
import { truncate } from './parse';

/**
 * Finding id: `fnd_` + 10 base36 characters of sha256(analyzer, urls, evidence). Stable across runs
 * of the same site state, so customers can track a finding from one audit to the next.
 */
export function findingId(analyzer: string, urls: readonly string[], evidence: string, salt = ''): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([analyzer, urls, evidence, salt]))
    .digest();
  return `fnd_${digest.readUIntBE(0, 6).toString(36).padStart(10, '0')}`;
}

/** Ids are unique within an audit; on the (practically impossible) clash the later one is re-salted. */
export class FindingIdAllocator {
  private readonly used = new Set<string>();

  allocate(analyzer: string, urls: readonly string[], evidence: string): string {
    let id = findingId(analyzer, urls, evidence);
    for (let n = 2; this.used.has(id); n++) id = findingId(analyzer, urls, evidence, String(n));
    this.used.add(id);
    return id;
  }
}

/** A draft completed from the catalog: category, severity, title and recommendation. Keys in schema order. */
export function makeFinding(code: string, draft: FindingDraft, ids: FindingIdAllocator): Finding {
  const entry = catalogEntry(code);
  const evidence = truncate(draft.evidence, EVIDENCE_MAX);
  return {
    id: ids.allocate(code, draft.urls, evidence),
    fingerprint: findingFingerprint(code, draft.subject),
    analyzer: code,
    category: entry.category,
    severity: draft.severity ?? entry.severity,
    title: entry.title,
    message: draft.message,
    recommendation: entry.recommendation,
    urls: [...draft.urls],
    count: draft.urls.length,
    evidence,
  };
}

/** Published analyzer scores keep 4 decimals, so anyone can recompute the category scores from them. */
export function roundAnalyzerScore(score: number): number {
  if (!Number.isFinite(score)) return 0;
  return Math.round(Math.min(1, Math.max(0, score)) * 10_000) / 10_000;
}

export function makeAnalyzerResult(code: string, status: AnalyzerStatus, score: number): AnalyzerResult {
  const entry = catalogEntry(code);
  const measured = status !== 'not_applicable' && status !== 'error';
  return {
    code,
    category: entry.category,
    title: entry.title,
    severity: entry.severity,
    status,
    score: measured ? roundAnalyzerScore(score) : 0,
    weight: analyzerWeight(entry.severity, status),
  };
}
