import type { AnalyzerStatus, Severity } from '../../schemas/audit';

/** Page geometry and colours of the report; the agency's own colour comes from its branding. */

export const PAGE = { width: 595.28, height: 841.89 }; // A4
export const MARGIN = { top: 56, bottom: 64, left: 56, right: 56 };
export const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;

export const TEXT = '#1f2937';
export const MUTED = '#6b7280';
export const RULE = '#e5e7eb';

export const SEVERITY_COLORS: Readonly<Record<Severity, string>> = {
  critical: '#b91c1c',
  high: '#ea580c',
  medium: '#b45309',
  low: '#2563eb',
  info: '#6b7280',
};

export const STATUS_COLORS: Readonly<Record<AnalyzerStatus, string>> = {
  pass: '#15803d',
  warn: '#b45309',
  fail: '#b91c1c',
  not_applicable: '#6b7280',
  error: '#7c3aed',
};

/** Green from 90, yellow-green from 75, amber from 50, red below. */
export function scoreColor(score: number): string {
  if (score >= 90) return '#15803d';
  if (score >= 75) return '#65a30d';
  if (score >= 50) return '#b45309';
  return '#b91c1c';
}
