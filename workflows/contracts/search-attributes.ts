// Typed search-attribute keys (Temporal UI filters, visibility queries): the one list of them.
// temporal/search-attributes.ts registers these with the server.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Mode } from '../../src/schemas/audit';
import type { AuditStatus } from './audit';

/** Audit lifecycle status as projected to Postgres: queued (also while waiting for a retry), running, completed, failed. */
export const AUDIT_STATUS = defineSearchAttributeKey('AuditStatus', SearchAttributeType.KEYWORD);
/** Normalized origin being audited, e.g. `https://example.com`. */
export const AUDIT_DOMAIN = defineSearchAttributeKey('AuditDomain', SearchAttributeType.KEYWORD);
/** Owning workspace (`ws_…`). */
export const WORKSPACE_ID = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
/** `test` or `live`. */
export const AUDIT_MODE = defineSearchAttributeKey('AuditMode', SearchAttributeType.KEYWORD);

/** All keys, e.g. for iteration in tests or for building visibility queries. */
export const SEARCH_ATTRIBUTE_KEYS = [AUDIT_STATUS, AUDIT_DOMAIN, WORKSPACE_ID, AUDIT_MODE] as const;

/** What every workflow of an audit (the audit, its deliveries, its reports) is found by. */
export interface AuditSearchSubject {
  domain: string;
  workspaceId: string;
  mode: Mode;
}

/**
 * The search attributes a workflow of this audit starts with. Only the audit's own workflow
 * carries a status (kept current by the workflow itself).
 */
export function auditSearchAttributes(audit: AuditSearchSubject, status?: AuditStatus): SearchAttributePair[] {
  return [
    ...(status ? [{ key: AUDIT_STATUS, value: status }] : []),
    { key: AUDIT_DOMAIN, value: audit.domain },
    { key: WORKSPACE_ID, value: audit.workspaceId },
    { key: AUDIT_MODE, value: audit.mode },
  ];
}
