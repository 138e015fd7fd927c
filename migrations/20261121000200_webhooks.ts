import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    // Needed in clear to sign deliveries; returned only once, in the creation response.
    t.text('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['workspace_id', 'mode', 'created_at']);
  });

  await knex.schema.createTable('deliveries', (t) => {
    t.string('id').primary();
    t.string('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.string('workspace_id').notNullable();
    t.string('mode').notNullable();
    t.string('audit_id').notNullable();
    t.string('event').notNullable();
    t.text('url').notNullable();
    // The exact bytes POSTed on every attempt.
    t.text('payload').notNullable();
    t.string('state').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_attempt_at', { useTz: true }).nullable();
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.timestamp('delivered_at', { useTz: true }).nullable();
    t.index(['webhook_id', 'created_at']);
  });
  await knex.raw(
    `ALTER TABLE deliveries ADD CONSTRAINT deliveries_state_check CHECK (state IN ('pending', 'delivered', 'failed'))`,
  );

  await knex.schema.createTable('delivery_attempts', (t) => {
    t.bigIncrements('id');
    t.string('delivery_id').notNullable().references('deliveries.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.string('trigger').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code').nullable();
    t.string('error_class').nullable();
    t.text('error_message').nullable();
    t.text('response_excerpt').nullable();
    t.timestamp('next_attempt_at', { useTz: true }).nullable();
    t.unique(['delivery_id', 'attempt']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('delivery_attempts');
  await knex.schema.dropTableIfExists('deliveries');
  await knex.schema.dropTableIfExists('webhooks');
}
