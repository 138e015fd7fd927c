import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError } from '../errors';

const RETENTION_HOURS = 24;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** A stable fingerprint of a JSON body: key order does not matter, values do. */
export function requestFingerprint(body: unknown): string {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
          )
        : value;
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/**
 * Claims an Idempotency-Key inside the trigger's transaction. Returns the stored response when the
 * key was already used with the same body in the last 24 h (a concurrent first use is waited for by
 * the unique index), null when this request owns the key and must run, and rejects another body.
 */
export async function claimIdempotencyKey(
  trx: Knex.Transaction,
  input: { workspaceId: string; key: string; fingerprint: string; now: Date },
): Promise<StoredResponse | null> {
  const expiredBefore = new Date(input.now.getTime() - RETENTION_HOURS * 3600_000);
  const claimed = await trx.raw(
    `INSERT INTO idempotency_keys (workspace_id, key, request_hash, response_status, response_body, created_at)
     VALUES (?, ?, ?, 0, '', ?)
     ON CONFLICT (workspace_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, response_status = 0, response_body = '', created_at = EXCLUDED.created_at
       WHERE idempotency_keys.created_at < ?
     RETURNING 1`,
    [input.workspaceId, input.key, input.fingerprint, input.now, expiredBefore],
  );
  if (claimed.rows.length > 0) return null;
  const existing = await trx('idempotency_keys').where({ workspace_id: input.workspaceId, key: input.key }).first();
  if (existing.request_hash !== input.fingerprint) {
    throw new ApiError(
      'invalid_request',
      'Idempotency-Key was already used with a different request body; use a new key for a new request',
    );
  }
  return { status: existing.response_status, body: JSON.parse(existing.response_body) };
}

export async function storeIdempotentResponse(
  trx: Knex.Transaction,
  input: { workspaceId: string; key: string; response: StoredResponse },
): Promise<void> {
  await trx('idempotency_keys')
    .where({ workspace_id: input.workspaceId, key: input.key })
    .update({ response_status: input.response.status, response_body: JSON.stringify(input.response.body) });
}

/** Header check: printable ASCII, at most 255 characters. */
export function parseIdempotencyKey(header: string): string | undefined {
  if (header === '') return undefined;
  if (header.length > 255 || !/^[\x21-\x7e]+$/.test(header)) {
    throw new ApiError('invalid_request', 'header Idempotency-Key must be 1 to 255 printable ASCII characters');
  }
  return header;
}
