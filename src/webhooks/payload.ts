import type { AuditRow } from '../audits/repository';
import { regressionOf, siteRegressedBody } from '../sites/regression';
import type { EventDetails } from '../../workflows/contracts';
import { auditFailedBody, auditRetriedBody } from './events';

/**
 * The exact bytes every attempt of an event's delivery POSTs, built from the audit row: the same
 * bytes however often they are built (audit.completed is the stored result, as GET /audits/{id} serves it).
 */
export function eventPayload(audit: AuditRow, details: EventDetails): string {
  switch (details.event) {
    case 'audit.completed':
      // The stored bytes, identical to GET /audits/{id}.
      if (audit.result_json === null) throw new Error(`audit ${audit.id} has no stored result`);
      return audit.result_json;
    case 'audit.failed':
      return auditFailedBody({
        auditId: audit.id,
        domain: audit.domain,
        error: { code: audit.error_code ?? 'internal_error', message: audit.error_message ?? 'the audit failed' },
        attempts: audit.attempts,
        failedAt: audit.failed_at ? new Date(audit.failed_at) : new Date(),
      });
    case 'audit.retried':
      return auditRetriedBody({
        auditId: audit.id,
        domain: audit.domain,
        attempt: details.attempt,
        maxRetries: details.maxRetries,
        nextAttemptAt: new Date(details.nextAttemptAt),
        error: details.error,
      });
    case 'site.regressed': {
      const regression = audit.result_json === null ? null : regressionOf(audit.result_json);
      if (!regression) throw new Error(`audit ${audit.id} did not regress`);
      return siteRegressedBody({ siteId: details.siteId, auditId: audit.id, regression });
    }
  }
}

/** The payloads of one emission's deliveries (audit.completed and the site.regressed beside it), each built once. */
export function emissionPayloads(audit: AuditRow): (details: EventDetails) => string {
  const built = new Map<string, string>();
  return (details) => {
    let payload = built.get(details.event);
    if (payload === undefined) built.set(details.event, (payload = eventPayload(audit, details)));
    return payload;
  };
}
