import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SiteActivities } from '../activities/sites';
import { SCHEDULED_START_TIME, SITE_RUN_RETRY, type SiteRunInput, type SiteRunResult } from './contracts';

const sites = proxyActivities<SiteActivities>({
  startToCloseTimeout: '1 minute',
  // Past this the firing gives up (the next one runs as usual); its retries never charge twice.
  scheduleToCloseTimeout: '1 hour',
  retry: SITE_RUN_RETRY,
});

/**
 * The action of a site's Schedule (`site-{site_id}`): one scheduled run through the trigger path
 * of POST /audits, recorded as started or skipped. It does not wait for the audit, which runs as
 * its own AuditWorkflow, so a firing takes well under a second and never overlaps the next.
 */
export async function SiteRunWorkflow(input: SiteRunInput): Promise<SiteRunResult> {
  const outcome = await sites.runScheduledSite({ siteId: input.siteId, scheduledAt: scheduledAt() });
  return outcome;
}

/**
 * When this firing was due: Temporal's TemporalScheduledStartTime, else the time suffix Temporal
 * appends to a scheduled workflow's id, else (started by hand, not by the schedule) the start time.
 */
function scheduledAt(): string {
  const info = workflowInfo();
  const attribute = info.typedSearchAttributes.get(SCHEDULED_START_TIME);
  if (attribute) return attribute.toISOString();
  const suffix = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/.exec(info.workflowId);
  if (suffix) return new Date(suffix[1]).toISOString();
  return info.runStartTime.toISOString();
}
