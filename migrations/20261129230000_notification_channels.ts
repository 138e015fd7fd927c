import type { Knex } from 'knex';

/**
 * Notification channels (docs/decisions.md, "Notification channels"):
 * - notification_channels: an e-mail address, or a Slack or Teams incoming-webhook URL, of a
 *   workspace and environment, and the events it is told of. Removing one keeps its row
 *   (deleted_at), so the log below still names it.
 * - notifications: the log of what was sent, one row per message to one channel (id = its
 *   NotificationWorkflow's id), with the exact body every attempt sends, how many attempts were made
 *   and how the last one went.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('notification_channels', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.string('type').notNullable();
    t.text('target').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['workspace_id', 'mode', 'created_at']);
  });
  await knex.raw(
    `ALTER TABLE notification_channels ADD CONSTRAINT notification_channels_type_check CHECK (type IN ('email', 'slack', 'teams'))`,
  );

  await knex.schema.createTable('notifications', (t) => {
    t.string('id').primary();
    t.string('channel_id').notNullable().references('notification_channels.id').onDelete('CASCADE');
    t.string('workspace_id').notNullable();
    t.string('mode').notNullable();
    t.string('event').notNullable();
    // What it is about; no foreign keys: the log outlives a pruned audit or a removed webhook.
    t.string('audit_id').nullable();
    t.string('site_id').nullable();
    t.string('webhook_id').nullable();
    // Where it goes (the channel's target when it was made) and the exact body of every attempt:
    // Slack's or Teams' JSON, or for e-mail {"subject","text"}.
    t.text('target').notNullable();
    t.text('payload').notNullable();
    t.string('state').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('last_status_code').nullable();
    t.string('last_error_class').nullable();
    t.text('last_error_message').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('last_attempt_at', { useTz: true }).nullable();
    t.timestamp('delivered_at', { useTz: true }).nullable();
    t.index(['channel_id', 'created_at']);
  });
  await knex.raw(
    `ALTER TABLE notifications ADD CONSTRAINT notifications_state_check CHECK (state IN ('pending', 'delivered', 'failed'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notifications');
  await knex.schema.dropTableIfExists('notification_channels');
}
