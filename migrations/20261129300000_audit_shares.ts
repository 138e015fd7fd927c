import type { Knex } from 'knex';

/**
 * Share links of audits (docs/decisions.md, "Share links"): a public, unguessable URL per row. Only a
 * SHA-256 of its token is kept (token_hash, the lookup key), so the table cannot rebuild a live link;
 * password_hash is scrypt as for people's passwords (src/people/passwords.ts). A revoked link keeps its
 * row (revoked_at) and is no longer listed; the audit's deletion (a prune) takes its links with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('audit_shares', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('mode').notNullable();
    t.string('audit_id').notNullable().references('audits.id').onDelete('CASCADE');
    t.binary('token_hash').notNullable().unique();
    t.text('password_hash').nullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['audit_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE audit_shares ADD CONSTRAINT audit_shares_mode_check CHECK (mode IN ('live', 'test'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audit_shares');
}
