import { proxyActivities } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance';
import { PRUNE_RETRY } from './contracts';

const maintenance = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '30 minutes',
  retry: PRUNE_RETRY,
});

/** Run by the daily `prune-expired-data` Schedule: deletes data past its retention. */
export async function PruneWorkflow() {
  return maintenance.pruneExpiredData();
}
