// Custom search attributes the service relies on (Temporal UI filters, visibility queries).
//
// The dev server registers them at start from SEARCH_ATTRIBUTES (`--search-attribute Name=Type`);
// an external server (TEMPORAL_ADDRESS) gets them through registerSearchAttributes().
// Workflow code uses the typed keys of workflows/contracts instead: this file imports the Node client.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';

/** Name → type, with types spelled as the Temporal CLI expects them. */
export const SEARCH_ATTRIBUTES = {
  AuditStatus: 'Keyword',
  AuditDomain: 'Keyword',
  WorkspaceId: 'Keyword',
  AuditMode: 'Keyword',
} as const;

export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES;

/** `--search-attribute Name=Type` arguments for `temporal server start-dev`. */
export function searchAttributeCliArgs(): string[] {
  return Object.entries(SEARCH_ATTRIBUTES).flatMap(([name, type]) => ['--search-attribute', `${name}=${type}`]);
}

// gRPC status code ALREADY_EXISTS (not importing @grpc/grpc-js: it is not a direct dependency).
const GRPC_ALREADY_EXISTS = 6;

/** Server-side enum value for a CLI-style type name such as 'Keyword'. */
function indexedValueType(type: string): number {
  const encoded = encodeSearchAttributeIndexedValueType(type.toUpperCase() as 'KEYWORD');
  if (encoded === undefined) throw new Error(`Unknown search attribute type ${type}`);
  return encoded;
}

/**
 * Makes sure every attribute of SEARCH_ATTRIBUTES exists in `namespace`. Adds only the missing
 * ones, so it is safe to call on every start; a concurrent registration by another process
 * ("already exists") is fine. Throws if a name exists with another type: that cannot be fixed
 * automatically (types are immutable) and queries on it would misbehave.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  // A few rounds: if another process added some of them meanwhile, the batched add fails with
  // ALREADY_EXISTS as a whole, so re-list and add whatever is still missing.
  for (let round = 1; ; round++) {
    const missing = await missingSearchAttributes(connection, namespace);
    if (Object.keys(missing).length === 0) return;
    try {
      await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
      return;
    } catch (err) {
      if (!(isGrpcServiceError(err) && err.code === GRPC_ALREADY_EXISTS) || round >= 3) throw err;
    }
  }
}

async function missingSearchAttributes(connection: Connection, namespace: string): Promise<Record<string, number>> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const existing: Record<string, number> = { ...(listed.systemAttributes ?? {}), ...(listed.customAttributes ?? {}) };
  const missing: Record<string, number> = {};
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    const wanted = indexedValueType(type);
    const have = existing[name];
    if (have === undefined) missing[name] = wanted;
    else if (have !== wanted) {
      throw new Error(
        `Search attribute ${name} exists in namespace ${namespace} with type ${have}, expected ${type} (${wanted})`,
      );
    }
  }
  return missing;
}
