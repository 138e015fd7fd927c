import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';

const maintenance = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '30 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 5 },
});

/** Run by the daily `prune-expired-data` Schedule: deletes data past its retention. */
export async function PruneWorkflow() {
  return maintenance.pruneExpiredData();
}
