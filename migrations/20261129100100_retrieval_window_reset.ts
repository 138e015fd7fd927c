import type { Knex } from 'knex';

/**
 * retrieval_hit() also answers when the oldest request kept in the window leaves it (reset_ms), for
 * the `t` of the RateLimit field (docs/decisions.md, "Rate-limit fields"). A function's result type
 * cannot be changed in place: dropped and created again, in the migration's transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS retrieval_hit(text, timestamptz, int, interval)');
  await knex.raw(`
    CREATE FUNCTION retrieval_hit(ws text, at timestamptz, max_hits int, window_length interval)
    RETURNS TABLE (allowed boolean, retry_after_ms bigint, remaining int, reset_ms bigint)
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
        RETURN QUERY SELECT true, 0::bigint, max_hits - coalesce(array_length(kept, 1), 0) - 1,
          ceil(extract(epoch FROM (coalesce(kept[1], at) + window_length - at)) * 1000)::bigint;
      ELSE
        UPDATE retrieval_windows SET hits = kept WHERE workspace_id = ws;
        RETURN QUERY SELECT false,
          ceil(extract(epoch FROM (kept[array_length(kept, 1) - max_hits + 1] + window_length - at)) * 1000)::bigint,
          0,
          ceil(extract(epoch FROM (kept[array_length(kept, 1) - max_hits + 1] + window_length - at)) * 1000)::bigint;
      END IF;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS retrieval_hit(text, timestamptz, int, interval)');
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
