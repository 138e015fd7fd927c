import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** A site's Temporal Schedule (docs/decisions.md, Monitoring): `site-{site_id}`, also the prefix of its runs' workflow ids. */
export function siteScheduleId(siteId: string): string {
  return `site-${siteId}`;
}

/** Arguments of SiteRunWorkflow, the action of a site's schedule. */
export interface SiteRunInput {
  siteId: string;
}

/** What one firing did: started an audit, skipped with the refused trigger's code, or found the site gone or paused. */
export interface SiteRunResult {
  outcome: 'started' | 'skipped' | 'not_due';
  auditId: string | null;
  skipReason: string | null;
}

/** Set by Temporal on every workflow a Schedule starts: the time the firing was due. */
export const SCHEDULED_START_TIME = defineSearchAttributeKey(
  'TemporalScheduledStartTime',
  SearchAttributeType.DATETIME,
);

/** A firing retried after a lost worker or database keeps trying this long; the next firing takes over after that. */
export const SITE_RUN_RETRY = { initialInterval: '1 second', maximumInterval: '30 seconds' } as const;
