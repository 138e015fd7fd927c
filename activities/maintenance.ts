import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import { pruneExpired } from '../src/audits/prune';

/** Activities of the scheduled maintenance workflows. */
export function createMaintenanceActivities(deps: { db: Db; clock: Clock }) {
  return {
    async pruneExpiredData(): Promise<{ audits: number; idempotencyKeys: number }> {
      return pruneExpired(deps.db, deps.clock.now());
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
