// Typed search-attribute keys for workflow code.
//
// This file is imported from workflows, which Temporal bundles into its deterministic sandbox:
// it must not import Node modules (or anything that does). '@temporalio/common' is sandbox-safe.
// The names here must match SEARCH_ATTRIBUTES in ./search-attributes.ts (a unit test checks it).
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

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
