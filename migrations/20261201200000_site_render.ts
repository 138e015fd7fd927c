import type { Knex } from 'knex';

/**
 * A monitored site keeps how its runs render their pages (`sites.render`, README.md "Monitoring"):
 * 'sample', the default and every site before this, or 'all' (team and up, as `render` of POST
 * /audits). Each firing reads it from the row, so schedules and their workflow input stay as they
 * are. Added with a constant default (no table rewrite), so code still running during an upgrade
 * can insert sites without it (docs/operations.md, "Upgrades").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE sites ADD COLUMN IF NOT EXISTS render text NOT NULL DEFAULT 'sample'`);
  await knex.raw(`ALTER TABLE sites DROP CONSTRAINT IF EXISTS sites_render_check`);
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_render_check CHECK (render IN ('sample', 'all')) NOT VALID`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE sites DROP CONSTRAINT IF EXISTS sites_render_check');
  await knex.raw('ALTER TABLE sites DROP COLUMN IF EXISTS render');
}
