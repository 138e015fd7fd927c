import type { Knex } from 'knex';

/** Runs one read until the database answers (the analysis's outage wait, src/audits/stored-crawl.ts). */
export type Wait = <T>(operation: () => Promise<T>) => Promise<T>;

/** A crawl's rows read in `seq` order, `chunk` a query; `from` gives the table and its filters afresh each time. */
export interface KeysetRead {
  from: () => Knex.QueryBuilder;
  /** The crawl's `seq` column, table-qualified when `from` joins ('p.seq'). */
  seq?: string;
  columns: readonly string[];
  chunk: number;
  /** Each query goes through it (default: run at once). */
  wait?: Wait;
  /** The `seq` the first row yielded comes after (default: from the first row). */
  after?: number;
  /** Rows yielded at most (default: every row). */
  take?: number;
}

/**
 * The one keyset read of a crawl's stored rows (crawl_pages, crawl_targets): each query starts after
 * the last `seq` the one before it saw, so a whole site's rows are never held at once and the last
 * chunk costs what the first does. Yields the rows in `seq` order.
 */
export async function* keysetRows<Row extends { seq: string }>(read: KeysetRead): AsyncGenerator<Row> {
  const seq = read.seq ?? 'seq';
  const wait: Wait = read.wait ?? ((operation) => operation());
  let after = read.after ?? 0;
  let left = read.take ?? Infinity;
  while (left > 0) {
    const from = after;
    const limit = Math.min(read.chunk, left);
    const rows = (await wait(() =>
      read
        .from()
        .andWhere(seq, '>', from)
        .orderBy(seq)
        .limit(limit)
        .select(seq, ...read.columns),
    )) as Row[];
    yield* rows;
    if (rows.length < limit) return;
    after = Number(rows[rows.length - 1]!.seq);
    left -= rows.length;
  }
}
