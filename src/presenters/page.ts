/**
 * A page of a keyset-paginated list: `{data, has_more, next_cursor}`. The cursor encoding belongs
 * to the caller (the API's opaque cursors, or whatever a page of the dashboard links to).
 */
export function presentPage<Row, Item>(
  page: { rows: Row[]; hasMore: boolean },
  presentRow: (row: Row) => Item,
  cursorAfter: (row: Row) => string,
) {
  const last = page.rows[page.rows.length - 1];
  return {
    data: page.rows.map((row) => presentRow(row)),
    has_more: page.hasMore,
    next_cursor: page.hasMore && last !== undefined ? cursorAfter(last) : null,
  };
}
