// Custom search attributes the service relies on (Temporal UI filters, visibility queries), as
// declared by the typed keys of workflows/contracts.
//
// The dev server registers them at start (`--search-attribute Name=Type`, from
// src/setup/temporal-dev-server.ts); an external server (TEMPORAL_ADDRESS) gets them through
// registerSearchAttributes(). This file imports the Node client: workflow code uses the keys themselves.
import { Connection, isGrpcServiceError } from '@temporalio/client';
import type { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTE_KEYS } from '../workflows/contracts';

/** Name → type, with types spelled as the Temporal CLI expects them. */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, cliTypeName(key.type)]),
);

/** The CLI's spelling of a type: `KEYWORD` → `Keyword`, `KEYWORD_LIST` → `KeywordList`. */
function cliTypeName(type: SearchAttributeType): string {
  return type.toLowerCase().replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

// gRPC status code ALREADY_EXISTS (not importing @grpc/grpc-js: it is not a direct dependency).
const GRPC_ALREADY_EXISTS = 6;

/**
 * Makes sure every attribute of SEARCH_ATTRIBUTE_KEYS exists in `namespace`. Adds only the missing
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
  for (const { name, type } of SEARCH_ATTRIBUTE_KEYS) {
    const wanted = encodeSearchAttributeIndexedValueType(type)!;
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
