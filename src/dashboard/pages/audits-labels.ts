import type { Category, Severity } from '../../schemas/audit';

export const AUDIT_STATUSES_SHOWN = ['queued', 'running', 'completed', 'failed'] as const;

const STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
};

/** Status words as people read them (never colour alone). */
export function statusLabel(status: string): string {
  return STATUS_LABELS[status] ?? status;
}

export const CATEGORY_LABELS: Record<Category, string> = {
  security: 'Security',
  seo: 'Search engines (SEO)',
  performance: 'Performance',
  accessibility: 'Accessibility',
  best_practices: 'Best practices',
  dns_email: 'DNS and e-mail',
};

export const SEVERITY_LABELS: Record<Severity, string> = {
  critical: 'Critical',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  info: 'Information',
};

/** A timestamp as a short UTC text for tables: "2026-11-23 04:28 UTC". */
export function shortTime(isoTime: string): string {
  return `${isoTime.replace('T', ' ').slice(0, 16)} UTC`;
}

/** A timestamp to the second, for delivery attempts that may be seconds apart: "2026-11-23 04:28:05 UTC". */
export function timeToSecond(isoTime: string): string {
  return `${isoTime.replace('T', ' ').slice(0, 19)} UTC`;
}
