import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Idempotency-Key on POST /audits: the first successful response, replayed for 24 h.
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('key', 255).notNullable();
    t.string('request_hash').notNullable();
    t.integer('response_status').notNullable();
    t.text('response_body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['workspace_id', 'key']);
    t.index(['created_at']);
  });

  // Retrieval limit: the times of the requests admitted in the last window, per workspace.
  await knex.schema.createTable('retrieval_windows', (t) => {
    t.string('workspace_id').primary().references('workspaces.id').onDelete('CASCADE');
    t.specificType('hits', 'timestamptz[]').notNullable().defaultTo('{}');
  });

  // One round trip, exact across API instances: the row lock serializes a workspace's requests.
  await knex.raw(`
    CREATE FUNCTION retrieval_hit(ws text, at timestamptz, max_hits int, window_length interval)
    RETURNS TABLE (allowed boolean, retry_after_ms bigint, remaining int)
    LANGUAGE plpgsql AS $$
    DECLARE
      kept timestamptz[];
    BEGIN
      INSERT INTO retrieval_windows (workspace_id) VALUES (ws) ON CONFLICT (workspace_id) DO NOTHING;
      PERFORM 1 FROM retrieval_windows WHERE workspace_id = ws FOR UPDATE;
      SELECT coalesce(array_agg(h ORDER BY h), '{}') INTO kept
        FROM retrieval_windows w, unnest(w.hits) AS h
       WHERE w.workspace_id = ws AND h > at - window_length;
      IF coalesce(array_length(kept, 1), 0) < max_hits THEN
        UPDATE retrieval_windows SET hits = kept || at WHERE workspace_id = ws;
        RETURN QUERY SELECT true, 0::bigint, max_hits - coalesce(array_length(kept, 1), 0) - 1;
      ELSE
        UPDATE retrieval_windows SET hits = kept WHERE workspace_id = ws;
        RETURN QUERY SELECT false,
          ceil(extract(epoch FROM (kept[array_length(kept, 1) - max_hits + 1] + window_length - at)) * 1000)::bigint,
          0;
      END IF;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS retrieval_hit(text, timestamptz, int, interval)');
  await knex.schema.dropTableIfExists('retrieval_windows');
  await knex.schema.dropTableIfExists('idempotency_keys');
}
