import type { Knex } from 'knex';

/**
 * Throttles count attempts, not failures: each log-in or sign-up takes a row before its scrypt work,
 * under an advisory lock per subject (src/people/attempt-limit.ts), so concurrent requests cannot all
 * pass the check. A row lives until its window ends (expires_at); login_failures, counted only after
 * the password check, gives way to it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('throttle_attempts', (t) => {
    t.bigIncrements('id');
    // e.g. 'login-email:<sha256>', 'login-ip:<address>', 'signup-ip:<address>'
    t.text('subject').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['subject', 'expires_at']);
    t.index(['expires_at']);
  });
  await knex.schema.dropTableIfExists('login_failures');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.createTable('login_failures', (t) => {
    t.bigIncrements('id');
    t.text('subject').notNullable();
    t.timestamp('failed_at', { useTz: true }).notNullable();
    t.index(['subject', 'failed_at']);
  });
  await knex.schema.dropTableIfExists('throttle_attempts');
}
