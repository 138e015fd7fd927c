import { ApiError } from './api-error';

/** Opaque keyset cursors over (created_at, id). */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([new Date(row.created_at).toISOString(), row.id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    if (typeof id === 'string' && !Number.isNaN(Date.parse(createdAt))) return { createdAt, id };
  } catch {
    // fall through to the error below
  }
  throw new ApiError('invalid_request', 'query parameter cursor is invalid: pass next_cursor from a previous page');
}
