import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { keysetRows } from '../../src/crawl/durable/keyset-read';

interface Query {
  after: number;
  seq: string;
  limit: number;
  columns: string[];
}

/** A table of rows with these seqs, read through the query builder calls keysetRows makes; each query is recorded. */
function fakeTable(seqs: number[], queries: Query[]): () => Knex.QueryBuilder {
  return () => {
    const query: Query = { after: Number.NaN, seq: '', limit: Number.NaN, columns: [] };
    const builder = {
      andWhere(column: string, op: string, after: number) {
        assert.equal(op, '>');
        Object.assign(query, { seq: column, after });
        return builder;
      },
      orderBy(column: string) {
        assert.equal(column, query.seq);
        return builder;
      },
      limit(limit: number) {
        query.limit = limit;
        return builder;
      },
      select(...columns: string[]) {
        query.columns = columns;
        queries.push(query);
        const rows = seqs.filter((seq) => seq > query.after).slice(0, query.limit);
        return Promise.resolve(rows.map((seq) => ({ seq: String(seq), value: `row ${seq}` })));
      },
    };
    return builder as unknown as Knex.QueryBuilder;
  };
}

async function all<T>(rows: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('keyset read of a crawl’s rows (src/crawl/durable/keyset-read.ts)', () => {
  it('yields every row in seq order, each query starting after the last seq the one before it saw', async () => {
    const seqs = [3, 4, 9, 10, 11, 20, 21];
    const queries: Query[] = [];
    const rows = await all(
      keysetRows<{ seq: string; value: string }>({
        from: fakeTable(seqs, queries),
        seq: 'p.seq',
        columns: ['p.value'],
        chunk: 3,
      }),
    );
    assert.deepEqual(
      rows.map((row) => row.value),
      seqs.map((seq) => `row ${seq}`),
    );
    assert.deepEqual(
      queries.map((q) => [q.after, q.limit, q.seq, q.columns]),
      [
        [0, 3, 'p.seq', ['p.seq', 'p.value']],
        [9, 3, 'p.seq', ['p.seq', 'p.value']],
        [20, 3, 'p.seq', ['p.seq', 'p.value']],
      ],
    );
  });

  it('ends on the first short chunk: a full last chunk costs one empty query, none after it', async () => {
    const queries: Query[] = [];
    const rows = await all(keysetRows({ from: fakeTable([1, 2, 3, 4], queries), columns: ['value'], chunk: 2 }));
    assert.equal(rows.length, 4);
    assert.deepEqual(
      queries.map((q) => [q.after, q.seq]),
      [
        [0, 'seq'],
        [2, 'seq'],
        [4, 'seq'],
      ],
    );
  });

  it('runs each query through `wait`', async () => {
    let waited = 0;
    const rows = await all(
      keysetRows({
        from: fakeTable([1, 2, 3], []),
        columns: ['value'],
        chunk: 2,
        wait: (operation) => {
          waited += 1;
          return operation();
        },
      }),
    );
    assert.deepEqual([rows.length, waited], [3, 2]);
  });
});
