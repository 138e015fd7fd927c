import { nextRunAt, siteCadence, siteTiming } from '../sites/cadence';
import type { HistoryRow, SiteRunRow, SiteWithLastAudit } from '../sites/repository';
import type { TriageRow } from '../sites/triage';
import { iso } from './iso';

/** A site as the API shows it (docs/decisions.md, Monitoring). */
export function presentSite(site: SiteWithLastAudit, opts: { overrideMs: number; now: Date }) {
  return {
    site_id: site.id,
    domain: site.domain,
    schedule: site.schedule,
    ...siteTiming(site),
    tier: site.tier,
    render: site.render,
    paused: site.paused,
    paused_reason: site.paused_reason,
    // By Temporal's own rule for the schedule's spec, daylight saving included (src/sites/cadence.ts).
    next_run_at: site.paused ? null : iso(nextRunAt(siteCadence(site, opts.overrideMs), opts.now)),
    last_audit_id: site.last_audit_id,
    created_at: iso(site.created_at),
    updated_at: iso(site.updated_at),
  };
}

/** One completed audit of the site's history. */
export function presentHistoryEntry(row: HistoryRow) {
  return {
    audit_id: row.id,
    completed_at: iso(row.completed_at),
    score: row.score,
    grade: row.grade,
    categories: (row.categories ?? null) as Record<string, unknown> | null,
  };
}

/** One firing of the site's schedule: the audit it started, or why it was skipped. */
export function presentSiteRun(row: SiteRunRow) {
  return {
    run_id: row.id,
    scheduled_at: iso(row.scheduled_at),
    outcome: row.outcome,
    audit_id: row.audit_id,
    skip_reason: row.skip_reason,
    skip_message: row.skip_message,
  };
}

export function presentTriage(row: TriageRow) {
  return {
    site_id: row.site_id,
    fingerprint: row.fingerprint,
    status: row.status,
    note: row.note,
    set_by: row.set_by,
    updated_at: iso(row.updated_at),
  };
}
