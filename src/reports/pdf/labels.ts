import type { AnalyzerStatus, Category, Severity } from '../../schemas/audit';

/** The words the report prints for the audit's codes, and its date format. */

export const SAMPLE_NOTICE = 'SAMPLE REPORT — synthetic test-mode data, not an audit of this site';

export const CATEGORY_LABELS: Readonly<Record<Category, string>> = {
  security: 'Security',
  seo: 'Search engine optimisation',
  performance: 'Performance',
  accessibility: 'Accessibility',
  best_practices: 'Best practices',
  dns_email: 'DNS and email',
};

export const SEVERITY_LABELS: Readonly<Record<Severity, string>> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Info',
};

export const STATUS_LABELS: Readonly<Record<AnalyzerStatus, string>> = {
  pass: 'Pass',
  warn: 'Warning',
  fail: 'Fail',
  not_applicable: 'Not applicable',
  error: 'Error',
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "21 November 2026", in UTC. */
export function formatDate(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}
