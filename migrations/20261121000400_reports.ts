import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every branding change takes a new revision from one sequence, so a stored report can say which
  // branding it was rendered with and a (audit, revision) pair names one render.
  await knex.raw('CREATE SEQUENCE branding_revision_seq START 1');

  // White-label branding per workspace and mode (test keys never change what live reports show).
  // display_name NULL means cleared: reports use the neutral look.
  await knex.schema.createTable('workspace_branding', (t) => {
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.bigInteger('revision').notNullable();
    t.text('display_name').nullable();
    t.string('primary_color').nullable();
    t.text('footer_text').nullable();
    t.text('contact_line').nullable();
    t.binary('logo').nullable();
    t.string('logo_type').nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['workspace_id', 'mode']);
  });

  // The latest rendered PDF of each audit; the bytes live in the report storage under storage_key.
  await knex.schema.createTable('audit_reports', (t) => {
    t.string('audit_id').primary().references('audits.id').onDelete('CASCADE');
    t.bigInteger('branding_revision').notNullable();
    // The audit result it was rendered from (a re-run test audit completes again: render again).
    t.timestamp('audit_completed_at', { useTz: true }).notNullable();
    t.text('storage_key').notNullable();
    t.integer('byte_size').notNullable();
    t.string('sha256').notNullable();
    t.integer('render_ms').notNullable();
    t.timestamp('rendered_at', { useTz: true }).notNullable();
  });

  // HMAC keys of the signed report links. The newest unretired key signs; every key still here
  // verifies, so links signed before a rotation keep working until they expire.
  await knex.schema.createTable('report_signing_keys', (t) => {
    t.string('id').primary();
    t.binary('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('retired_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('report_signing_keys');
  await knex.schema.dropTableIfExists('audit_reports');
  await knex.schema.dropTableIfExists('workspace_branding');
  await knex.raw('DROP SEQUENCE IF EXISTS branding_revision_seq');
}
