import { ApiError } from '../errors';

/**
 * Opaque cursors of the lists inside one audit (its pages, a finding's URLs): a position in the
 * list's fixed order, bound to the list it was made for. A cursor of another list (another audit,
 * another finding, or the audits list) is refused; the filters are not part of it, so a cursor
 * passed with other filters continues after the same position (docs/decisions.md, "Pages and exports").
 */

const MAX_CURSOR_LENGTH = 512;
const MAX_POSITION = 2147483647;

/** Which list a cursor belongs to: its kind and the ids that name it, e.g. ['pages', 'aud_…']. */
export type ListKey = readonly [kind: 'pages' | 'finding_urls', ...ids: string[]];

export function encodePositionCursor(list: ListKey, position: number): string {
  return Buffer.from(JSON.stringify([...list, position])).toString('base64url');
}

/** The position a cursor names; `400 invalid_request` unless encodePositionCursor made it for this list. */
export function decodePositionCursor(cursor: string, list: ListKey): number {
  if (cursor.length <= MAX_CURSOR_LENGTH && /^[A-Za-z0-9_-]+$/.test(cursor)) {
    try {
      const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (Array.isArray(decoded) && decoded.length === list.length + 1) {
        const position = decoded[list.length] as unknown;
        const sameList = list.every((part, index) => decoded[index] === part);
        if (sameList && Number.isInteger(position) && (position as number) >= 0 && (position as number) <= MAX_POSITION)
          return position as number;
      }
    } catch {
      // fall through to the error below
    }
  }
  throw new ApiError(
    'invalid_request',
    'query parameter cursor is invalid: pass next_cursor from a previous page of this same list',
  );
}
