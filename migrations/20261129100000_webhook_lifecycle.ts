import type { Knex } from 'knex';

/**
 * The webhook lifecycle (docs/decisions.md, "Webhook lifecycle"):
 * - status, disabled_at, disabled_reason: a webhook auto-disabled after failing for
 *   WEBHOOK_DISABLE_AFTER_MS (or enabled again with PATCH).
 * - failing_since: when its current streak of nothing but failed attempts began (null: its last attempt
 *   was acknowledged), written by the statement that records an attempt; watched_for: the streak its
 *   WebhookHealthWorkflow was told about; failure_notice_for: the streak its owners were warned of.
 * - previous_secret, previous_secret_expires_at: the secret before a rotation, still signing every
 *   delivery beside the new one until then.
 * - deliveries.audit_id becomes nullable: webhook.test and webhook.disabled are about no audit.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.text('status').notNullable().defaultTo('enabled');
    t.timestamp('disabled_at', { useTz: true }).nullable();
    t.text('disabled_reason').nullable();
    t.timestamp('failing_since', { useTz: true }).nullable();
    t.timestamp('watched_for', { useTz: true }).nullable();
    t.timestamp('failure_notice_for', { useTz: true }).nullable();
    t.text('previous_secret').nullable();
    t.timestamp('previous_secret_expires_at', { useTz: true }).nullable();
  });
  await knex.raw(`ALTER TABLE webhooks ADD CONSTRAINT webhooks_status_check CHECK (status IN ('enabled', 'disabled'))`);
  await knex.schema.alterTable('deliveries', (t) => {
    t.string('audit_id').nullable().alter();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex('deliveries').whereNull('audit_id').delete();
  await knex.schema.alterTable('deliveries', (t) => {
    t.string('audit_id').notNullable().alter();
  });
  await knex.raw('ALTER TABLE webhooks DROP CONSTRAINT IF EXISTS webhooks_status_check');
  await knex.schema.alterTable('webhooks', (t) => {
    for (const column of [
      'status',
      'disabled_at',
      'disabled_reason',
      'failing_since',
      'watched_for',
      'failure_notice_for',
      'previous_secret',
      'previous_secret_expires_at',
    ])
      t.dropColumn(column);
  });
}
