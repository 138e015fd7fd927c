import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.string('id').primary();
    t.string('tier').notNullable();
    t.integer('custom_quota').nullable();
    // An upgrade resets the period's used count: audits charged before this instant no longer count.
    t.timestamp('usage_reset_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE accounts ADD CONSTRAINT accounts_tier_check
    CHECK (tier IN ('free', 'pro', 'team', 'enterprise'))`);

  await knex.schema.createTable('workspaces', (t) => {
    t.string('id').primary();
    t.string('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('name').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['account_id']);
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.string('prefix').notNullable();
    t.string('secret_hash').notNullable().unique();
    t.specificType('allowed_cidrs', 'text[]').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true }).nullable();
    t.timestamp('revoked_at', { useTz: true }).nullable();
    t.index(['workspace_id']);
  });
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_mode_check CHECK (mode IN ('test', 'live'))`);

  await knex.schema.createTable('audits', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.string('domain').notNullable();
    t.string('tier').notNullable();
    t.string('status').notNullable();
    t.integer('score').nullable();
    t.string('grade').nullable();
    // Counts against the monthly quota (live, and not the free first audit of its domain).
    t.boolean('charged').notNullable().defaultTo(false);
    t.string('webhook_url').nullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('error_code').nullable();
    t.text('error_message').nullable();
    // The exact bytes served by GET /audits/{id} and POSTed in audit.completed.
    t.text('result_json').nullable();
    t.timestamp('estimated_completion', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('started_at', { useTz: true }).nullable();
    t.timestamp('completed_at', { useTz: true }).nullable();
    t.timestamp('failed_at', { useTz: true }).nullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'mode', 'created_at', 'id'], 'audits_listing_idx');
    t.index(['account_id', 'mode', 'created_at'], 'audits_account_usage_idx');
    t.index(['account_id', 'domain'], 'audits_account_domain_idx');
  });
  await knex.raw(`ALTER TABLE audits ADD CONSTRAINT audits_status_check
    CHECK (status IN ('queued', 'running', 'completed', 'failed'))`);
  await knex.raw(`ALTER TABLE audits ADD CONSTRAINT audits_mode_check CHECK (mode IN ('test', 'live'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('audits');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('workspaces');
  await knex.schema.dropTableIfExists('accounts');
}
