import { stringify } from 'csv-stringify/sync';
import type { Audit } from './types';

/**
 * The audit's findings as CSV, with the columns and dialect of the service's findings.csv export
 * (docs/decisions.md, "Pages and exports"): one row per finding and URL, a finding without URLs on
 * one row with an empty url; RFC 4180 with CRLF line ends, line breaks inside cells quoted, and text
 * cells a spreadsheet would run as formulas escaped with a leading apostrophe (csv-stringify's
 * `escape_formulas`). Written from the audit JSON, which lists the first 100 URLs of each finding and
 * neither their depth nor their referrers: those two columns stay empty here, and
 * GET /v1/audits/{audit_id}/findings.csv has every URL with both.
 */

/** The columns of findings.csv, in its order. */
export const FINDING_COLUMNS = [
  'finding_id',
  'analyzer',
  'category',
  'severity',
  'title',
  'count',
  'url',
  'depth',
  'referrers',
] as const;

type Row = Record<(typeof FINDING_COLUMNS)[number], string | number | null>;

function rows(audit: Audit): Row[] {
  return audit.findings.flatMap((f): Row[] => {
    const base = {
      finding_id: f.id,
      analyzer: f.analyzer,
      category: f.category,
      severity: f.severity,
      title: f.title,
      count: f.count ?? f.urls.length,
      depth: null,
      referrers: null,
    };
    return f.urls.length === 0 ? [{ ...base, url: null }] : f.urls.map((url) => ({ ...base, url }));
  });
}

export function renderCsv(audit: Audit): string {
  return stringify(rows(audit), {
    header: true,
    columns: [...FINDING_COLUMNS],
    record_delimiter: 'windows',
    quote_record_delimiter: true,
    escape_formulas: true,
  });
}
