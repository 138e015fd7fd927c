import { hasIdShape, type ID_PATTERNS } from '../ids';
import { ApiError } from '../errors';

// Exactly what encodeCursor writes: anything else ("12345", year 0000) was not made by us.
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MAX_CURSOR_LENGTH = 512;

/** Opaque keyset cursors over (created_at, id). */
export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([new Date(row.created_at).toISOString(), row.id])).toString('base64url');
}

/** The position a cursor names; `400 invalid_request` unless it is one encodeCursor made for this kind of row. */
export function decodeCursor(cursor: string, kind: keyof typeof ID_PATTERNS): { createdAt: string; id: string } {
  if (cursor.length <= MAX_CURSOR_LENGTH && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (Array.isArray(decoded) && decoded.length === 2) {
        const [createdAt, id] = decoded as unknown[];
        if (typeof createdAt === 'string' && isCursorTime(createdAt) && hasIdShape(kind, id)) return { createdAt, id };
      }
    } catch {
      // fall through to the error below
    }
  }
  throw new ApiError('invalid_request', 'query parameter cursor is invalid: pass next_cursor from a previous page');
}

function isCursorTime(value: string): boolean {
  if (!CURSOR_TIME.test(value) || value.startsWith('0000')) return false;
  const time = Date.parse(value);
  return !Number.isNaN(time) && new Date(time).toISOString() === value;
}
