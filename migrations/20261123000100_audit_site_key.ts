import type { Knex } from 'knex';
import { siteOfUrl } from '../src/registrable-domain';

/**
 * The first live audit of a site is free, keyed on the site (registrable domain, or the canonical
 * address of an IP literal) rather than the origin: scheme, port, www. and other sub-domains of
 * one registrable domain are one site. Existing rows are backfilled from their origin.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('audits', (t) => {
    t.string('site_key').nullable();
  });
  const domains = (await knex('audits').distinct('domain')) as Array<{ domain: string }>;
  for (const { domain } of domains) {
    await knex('audits')
      .where({ domain })
      .update({ site_key: siteOfUrl(domain) ?? domain });
  }
  await knex.raw(`CREATE INDEX audits_account_site_idx ON audits (account_id, site_key) WHERE mode = 'live'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS audits_account_site_idx');
  await knex.schema.alterTable('audits', (t) => {
    t.dropColumn('site_key');
  });
}
