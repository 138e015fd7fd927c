import type { Knex } from 'knex';
import { MODES, type Tier } from '../schemas/audit';
import { SITE_LIMITS } from './cadence';
import { recordOwedSchedule } from './owed-schedules';
import { accountSites, updateSite } from './repository';

/**
 * After a tier change, in its transaction (docs/decisions.md, Monitoring → Downgrade): per
 * environment the account's oldest running sites, up to the new limit, keep running; the newer
 * ones are paused with paused_reason 'tier_limit' (free: all of them). An upgrade resumes the sites a
 * downgrade paused, oldest first, as far as the new limit allows; a user's own pause is never
 * touched. The schedules follow through the owed-schedule outbox (unclaimed here, so the API's
 * reconciler applies them within seconds); until then the run itself finds the site paused.
 */
export async function applySiteLimit(
  trx: Knex.Transaction,
  input: { accountId: string; tier: Tier; now: Date },
): Promise<{ paused: string[]; resumed: string[] }> {
  const limit = SITE_LIMITS[input.tier] ?? Infinity;
  const paused: string[] = [];
  const resumed: string[] = [];
  for (const mode of MODES) {
    let running = 0;
    for (const site of await accountSites(trx, input.accountId, mode)) {
      // A user's own pause stays as it is and takes no running slot.
      if (site.paused && site.paused_reason !== 'tier_limit') continue;
      if (running < limit) {
        running++;
        if (site.paused_reason !== 'tier_limit') continue;
        await updateSite(trx, site.id, { paused: false, paused_reason: null, updated_at: input.now });
        resumed.push(site.id);
      } else {
        if (site.paused_reason === 'tier_limit') continue;
        await updateSite(trx, site.id, { paused: true, paused_reason: 'tier_limit', updated_at: input.now });
        paused.push(site.id);
      }
      await recordOwedSchedule(trx, site.id, { claim: false });
    }
  }
  return { paused, resumed };
}
