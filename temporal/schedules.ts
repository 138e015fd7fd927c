import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { PruneWorkflow } from '../workflows';
import { PRUNE_SCHEDULE_ID } from '../workflows/contracts';

/**
 * The daily retention job as a Temporal Schedule, so operators see it (and can trigger or pause it)
 * in the Temporal UI. Created once; later starts leave an existing schedule as operators left it.
 */
export async function ensurePruneSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: PRUNE_SCHEDULE_ID,
      spec: { calendars: [{ hour: 3, minute: 17, comment: 'daily at 03:17 UTC' }] },
      action: {
        type: 'startWorkflow',
        workflowType: PruneWorkflow,
        workflowId: PRUNE_SCHEDULE_ID,
        taskQueue,
        args: [],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
      memo: {
        purpose: 'Deletes free-tier audits older than 24 months and Idempotency-Key records older than 24 hours.',
      },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
}
