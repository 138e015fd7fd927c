import type { Clock } from '../src/clock';
import type { Db } from '../src/db/knex';
import { pruneExpired } from '../src/retention/prune';
import type { ReportStorage } from '../src/reports/storage';

/** Activities of the scheduled maintenance workflows. */
export function createMaintenanceActivities(deps: { db: Db; clock: Clock; storage: ReportStorage }) {
  return {
    async pruneExpiredData() {
      return pruneExpired(deps.db, deps.storage, deps.clock.now());
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;
