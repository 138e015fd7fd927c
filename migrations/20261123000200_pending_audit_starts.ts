import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Outbox of workflow starts: a trigger commits the audit and its row here, then starts the
  // workflow outside any transaction and deletes the row. What a crash or a Temporal outage left
  // behind is started (or refunded) by the reconciler.
  await knex.schema.createTable('pending_audit_starts', (t) => {
    t.string('audit_id').primary().references('audits.id').onDelete('CASCADE');
    // Which trigger's start this is: a re-triggered test audit gets a new token, so the earlier
    // trigger's confirmation cannot clear the later one's start.
    t.string('token').notNullable();
    t.timestamp('requested_at', { useTz: true }).notNullable();
    // While in the future, a trigger or a reconciler is starting it: others leave it alone.
    t.timestamp('claimed_until', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('pending_audit_starts');
}
