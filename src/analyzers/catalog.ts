import type { Category, Severity } from '../schemas/audit';
import { SECURITY_ROWS } from './catalog-rows/security';
import { DNS_EMAIL_ROWS } from './catalog-rows/dns-email';
import { SEO_ROWS } from './catalog-rows/seo';
import { PERFORMANCE_ROWS } from './catalog-rows/performance';
import { ACCESSIBILITY_ROWS } from './catalog-rows/accessibility';
import { BEST_PRACTICES_ROWS } from './catalog-rows/best-practices';
import type { SeverityLetter } from './catalog-rows/row';

/**
 * The analyzer catalog as data (docs/analyzers.md, Catalog): one entry per analyzer, in catalog order.
 * Codes are public and stable once shipped. `title`, `why` and `recommendation` are read by customers
 * (findings, PDF report, docs), so they are written for a site owner, not for us.
 */

/** Every row, category by category (one data file each under catalog-rows/). */
const ROWS = [
  ...SECURITY_ROWS,
  ...DNS_EMAIL_ROWS,
  ...SEO_ROWS,
  ...PERFORMANCE_ROWS,
  ...ACCESSIBILITY_ROWS,
  ...BEST_PRACTICES_ROWS,
] as const;

export type AnalyzerCode = (typeof ROWS)[number][0];

export interface CatalogEntry {
  readonly code: AnalyzerCode;
  readonly category: Category;
  readonly severity: Severity;
  readonly title: string;
  /** Why it matters, for a site owner. */
  readonly why: string;
  /** What to change; copied into every finding of this analyzer. */
  readonly recommendation: string;
}

const SEVERITY_OF: Record<SeverityLetter, Severity> = { C: 'critical', H: 'high', M: 'medium', L: 'low', I: 'info' };

/** The category follows from the code's prefix, so a new row cannot be filed in the wrong one. */
export function categoryOfCode(code: string): Category {
  if (code.startsWith('SEC_')) return 'security';
  if (code.startsWith('DNS_') || code.startsWith('EMAIL_')) return 'dns_email';
  if (code.startsWith('SEO_')) return 'seo';
  if (code.startsWith('PERF_')) return 'performance';
  if (code.startsWith('A11Y_')) return 'accessibility';
  if (code.startsWith('BP_')) return 'best_practices';
  throw new Error(`analyzer code ${code} has no known category prefix`);
}

/** Every analyzer, in catalog order (also the order of `analyzers[]` in an audit). */
export const CATALOG: readonly CatalogEntry[] = Object.freeze(
  ROWS.map(([code, sev, title, why, recommendation]) =>
    Object.freeze({ code, category: categoryOfCode(code), severity: SEVERITY_OF[sev], title, why, recommendation }),
  ),
);

export const ANALYZER_CODES: readonly AnalyzerCode[] = Object.freeze(CATALOG.map((e) => e.code));

const BY_CODE: ReadonlyMap<string, CatalogEntry> = new Map(CATALOG.map((e) => [e.code, e]));
const ORDER: ReadonlyMap<string, number> = new Map(CATALOG.map((e, i) => [e.code, i]));

/** The catalog entry of a code; throws on an unknown code (a programming error, not a data error). */
export function catalogEntry(code: string): CatalogEntry {
  const entry = BY_CODE.get(code);
  if (!entry) throw new Error(`unknown analyzer code ${code}`);
  return entry;
}

export function findCatalogEntry(code: string): CatalogEntry | undefined {
  return BY_CODE.get(code);
}

/** Position in the catalog, for sorting; unknown codes sort last. */
export function catalogIndex(code: string): number {
  return ORDER.get(code) ?? Number.MAX_SAFE_INTEGER;
}

/** Scoring v1: an analyzer's weight by its severity. */
export const SEVERITY_WEIGHTS: Readonly<Record<Severity, number>> = Object.freeze({
  critical: 10,
  high: 7,
  medium: 3,
  low: 1,
  info: 0,
});

/** Scoring v1: a category's weight in the overall score. */
export const CATEGORY_WEIGHTS: Readonly<Record<Category, number>> = Object.freeze({
  security: 25,
  seo: 25,
  performance: 15,
  accessibility: 15,
  best_practices: 10,
  dns_email: 10,
});

/** Most severe first; used to order findings. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = Object.freeze({
  critical: 0,
  high: 1,
  medium: 2,
  low: 3,
  info: 4,
});
