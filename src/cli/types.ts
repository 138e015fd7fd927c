import type { Schemas } from '../client';

/** The API's shapes the CLI works with, all from the typed client (which follows src/schemas). */
export type Audit = Schemas['Audit'];
export type Finding = Audit['findings'][number];
export type AnalyzerResult = Audit['analyzers'][number];
export type Severity = Finding['severity'];
export type Tier = NonNullable<Schemas['TriggerAuditRequest']['tier']>;
export type TriggerResponse = Schemas['TriggerAuditResponse'];
export type StatusEnvelope = Schemas['AuditStatusEnvelope'];

/** Most severe first, as the audit JSON orders findings. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const satisfies readonly Severity[];
export const TIERS = ['free', 'pro', 'team', 'enterprise'] as const satisfies readonly Tier[];
export const FORMATS = ['text', 'json', 'sarif', 'junit', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

/** 0 for critical … 4 for info: lower is more severe. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

/** The exit codes (docs/decisions.md, "Customer CLI"). */
export const EXIT = { passed: 0, gateFailed: 1, error: 2 } as const;

/** A usage or API error: the CLI prints its message on stderr and exits 2. */
export class CliError extends Error {}
