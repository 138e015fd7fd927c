/**
 * Why an audit attempt failed (error.code of a failed audit). The activity reports a classified
 * failure as an ApplicationFailure whose type is the code; every code but robots_disallowed is
 * retried per AUDIT_RETRY_DELAYS_MS.
 */
export const AUDIT_FAILURE_CODES = [
  'domain_unreachable',
  'robots_disallowed',
  'target_rate_limited',
  'audit_provider_unavailable',
  'internal_error',
] as const;

export type AuditFailureCode = (typeof AUDIT_FAILURE_CODES)[number];

/** What customers see of an unexpected error; its details stay in the worker's log. */
export const INTERNAL_ERROR_MESSAGE = 'the audit could not be completed because of an internal error';

export const NOT_RETRIED: readonly AuditFailureCode[] = ['robots_disallowed'];

export function isAuditFailureCode(value: unknown): value is AuditFailureCode {
  return typeof value === 'string' && (AUDIT_FAILURE_CODES as readonly string[]).includes(value);
}

/** A classified reason an audit attempt failed, thrown by the engine; the activity maps it to a Temporal failure. */
export class AuditFailure extends Error {
  constructor(
    readonly code: AuditFailureCode,
    message: string,
  ) {
    super(message);
  }
}
