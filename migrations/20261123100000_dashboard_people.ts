import type { Knex } from 'knex';

/**
 * The dashboard's people: users (e-mail and scrypt password hash), their memberships of workspaces
 * with a role, server-side sessions (only a hash of the cookie's token is stored), invitations,
 * failed log-ins (throttling) and the mail outbox.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.string('id').primary();
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('password_changed_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('memberships', (t) => {
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('role').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.primary(['workspace_id', 'user_id']);
    t.index(['user_id']);
  });
  await knex.raw(`ALTER TABLE memberships ADD CONSTRAINT memberships_role_check
    CHECK (role IN ('owner', 'developer', 'viewer'))`);

  await knex.schema.createTable('sessions', (t) => {
    t.string('token_hash').primary();
    t.string('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('csrf_token').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true }).notNullable();
    t.timestamp('ended_at', { useTz: true }).nullable();
    t.index(['user_id']);
  });

  await knex.schema.createTable('invitations', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('email').notNullable();
    t.string('role').notNullable();
    t.string('token_hash').notNullable().unique();
    t.string('invited_by').nullable().references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('accepted_at', { useTz: true }).nullable();
    t.index(['workspace_id']);
  });

  await knex.schema.createTable('login_failures', (t) => {
    t.bigIncrements('id');
    // 'email:<address>' or 'ip:<address>'
    t.text('subject').notNullable();
    t.timestamp('failed_at', { useTz: true }).notNullable();
    t.index(['subject', 'failed_at']);
  });

  await knex.schema.createTable('mail_outbox', (t) => {
    t.bigIncrements('id');
    t.text('to_address').notNullable();
    t.text('subject').notNullable();
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['mail_outbox', 'login_failures', 'invitations', 'sessions', 'memberships', 'users'])
    await knex.schema.dropTableIfExists(table);
}
