import type { Knex } from 'knex';

/**
 * Monitoring (docs/decisions.md "Monitoring"): sites audited on a schedule, one row per schedule
 * firing (started or skipped with the refused trigger's error code), triage of a site's findings
 * by fingerprint, and the outbox of owed Temporal Schedule changes. An audit belongs to a site when
 * workspace, mode and domain match, so audits get an index for a site's history, not a column.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sites', (t) => {
    t.string('id').primary();
    t.string('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('mode').notNullable();
    t.text('domain').notNullable();
    t.string('schedule').notNullable();
    // The audit depth of its runs (POST /v1/sites tier); null: the account's tier at each run.
    t.string('tier').nullable();
    t.boolean('paused').notNullable().defaultTo(false);
    // 'tier_limit' when a downgrade paused it; null when a user paused it (or it runs).
    t.string('paused_reason').nullable();
    // Bumped by every change of the site: a Temporal Schedule written from an older revision is
    // never written over a newer one (the revision travels in the schedule's note).
    t.integer('revision').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.unique(['workspace_id', 'mode', 'domain']);
    t.index(['account_id', 'created_at']);
  });
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_mode_check CHECK (mode IN ('test', 'live'))`);
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_schedule_check
    CHECK (schedule IN ('daily', 'weekly', 'monthly'))`);

  await knex.schema.createTable('site_runs', (t) => {
    t.string('id').primary();
    t.string('site_id').notNullable().references('sites.id').onDelete('CASCADE');
    t.timestamp('scheduled_at', { useTz: true }).notNullable();
    t.string('outcome').notNullable();
    t.string('audit_id').nullable().references('audits.id').onDelete('SET NULL');
    // The error code of the refused trigger: audit_quota_exceeded, burst_limit_exceeded, tier_required, …
    t.string('skip_reason').nullable();
    t.text('skip_message').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    // A retried firing records once.
    t.unique(['site_id', 'scheduled_at']);
  });
  await knex.raw(`ALTER TABLE site_runs ADD CONSTRAINT site_runs_outcome_check
    CHECK (outcome IN ('started', 'skipped'))`);

  await knex.schema.createTable('site_finding_triage', (t) => {
    t.string('site_id').notNullable().references('sites.id').onDelete('CASCADE');
    t.string('fingerprint').notNullable();
    t.string('status').notNullable();
    t.text('note').nullable();
    // 'key:<key_id>' or 'user:<user_id>'
    t.string('set_by').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['site_id', 'fingerprint']);
  });
  await knex.raw(`ALTER TABLE site_finding_triage ADD CONSTRAINT site_finding_triage_status_check
    CHECK (status IN ('open', 'ignored', 'accepted'))`);

  // Owed schedule changes: written in the transaction that changes the site, cleared once the
  // Temporal Schedule matches the row (or is gone with it). No foreign key: a deleted site's row
  // stays to delete its schedule.
  await knex.schema.createTable('pending_site_schedules', (t) => {
    t.string('site_id').primary();
    // Whose request this is: a later change of the site gets a new token, so the earlier
    // change's confirmation cannot clear the later one's debt.
    t.string('token').notNullable();
    t.timestamp('requested_at', { useTz: true }).notNullable();
    t.timestamp('claimed_until', { useTz: true }).nullable();
  });

  // A site's history and the comparison with the previous audit of the same workspace, mode and domain.
  await knex.raw(`CREATE INDEX audits_site_history_idx ON audits (workspace_id, mode, domain, completed_at DESC, id)
    WHERE status = 'completed'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS audits_site_history_idx');
  for (const table of ['pending_site_schedules', 'site_finding_triage', 'site_runs', 'sites'])
    await knex.schema.dropTableIfExists(table);
}
