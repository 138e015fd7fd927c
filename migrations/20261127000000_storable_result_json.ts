import type { Knex } from 'knex';

// A JSON escape of U+0000 or of a surrogate, preceded by an even number of backslashes (so it is an
// escape, not an escaped backslash followed by the letters). JSON.stringify escapes a surrogate only
// when it is lone: each such escape is text jsonb refuses.
const UNSTORABLE_ESCAPE = String.raw`(?<!\\)((?:\\\\)*)\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})`;
const REPLACEMENT = String.raw`\1\\ufffd`;
const ANY_SUCH_ESCAPE = String.raw`\\u(0000|[dD][89a-fA-F])`;

/**
 * Audits stored before outside text was made storable (docs/decisions.md, "Bytes from outside") may
 * hold \u0000 or lone-surrogate escapes that a `::jsonb` read refuses, which broke their site's
 * history and triage: each becomes \ufffd, as new audits store it. Also the analysed JSON that waits
 * for a browser stage.
 */
export async function up(knex: Knex): Promise<void> {
  for (const [table, column] of [
    ['audits', 'result_json'],
    ['audit_browser_stages', 'pending_audit_json'],
  ] as const) {
    await knex(table)
      .whereRaw('?? ~ ?', [column, ANY_SUCH_ESCAPE])
      .update({ [column]: knex.raw(`regexp_replace(??, ?, ?, 'g')`, [column, UNSTORABLE_ESCAPE, REPLACEMENT]) });
  }
}

/** Nothing to undo: the replaced escapes stood for characters no reader could use. */
export async function down(): Promise<void> {}
