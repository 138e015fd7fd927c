import type { Knex } from 'knex';

/**
 * Schedules in the customer's time (docs/decisions.md): a site's IANA zone, time of day ("HH:MM")
 * and, by schedule, weekday or day of the month. Until now a site ran at the minute of its
 * creation in UTC, on that weekday or day of the month (the 28th at the latest): existing rows
 * get exactly that, so their schedules do not move. at, weekday and day_of_month stay nullable,
 * null meaning that same default (src/sites/cadence.ts siteTiming), so that code still running
 * during an upgrade can insert sites without them (docs/operations.md, "Upgrades").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sites', (t) => {
    t.text('time_zone').notNullable().defaultTo('UTC');
    t.string('at', 5).nullable();
    t.string('weekday', 3).nullable();
    t.smallint('day_of_month').nullable();
  });
  await backfill(knex);
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_at_check CHECK (at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$')`);
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_weekday_check
    CHECK (weekday IN ('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'))`);
  await knex.raw(`ALTER TABLE sites ADD CONSTRAINT sites_day_of_month_check CHECK (day_of_month BETWEEN 1 AND 28)`);
}

/** Today's schedule of each site without a time, written out (test/integration/sites-time-zones.test.ts runs it). */
export async function backfill(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE sites SET
      at = to_char(created_at AT TIME ZONE 'UTC', 'HH24:MI'),
      weekday = CASE WHEN schedule = 'weekly' THEN lower(to_char(created_at AT TIME ZONE 'UTC', 'Dy')) END,
      day_of_month = CASE WHEN schedule = 'monthly'
        THEN least(extract(day FROM created_at AT TIME ZONE 'UTC')::int, 28) END
    WHERE at IS NULL AND time_zone = 'UTC'`);
}

export async function down(knex: Knex): Promise<void> {
  for (const check of ['sites_at_check', 'sites_weekday_check', 'sites_day_of_month_check'])
    await knex.raw(`ALTER TABLE sites DROP CONSTRAINT IF EXISTS ${check}`);
  await knex.schema.alterTable('sites', (t) => {
    for (const column of ['time_zone', 'at', 'weekday', 'day_of_month']) t.dropColumn(column);
  });
}
