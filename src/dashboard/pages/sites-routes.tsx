import { ApiError } from '../../errors';
import { hasIdShape } from '../../ids';
import { fingerprintHistories, siteAuditPoints, siteTriage } from '../../monitoring/site-history';
import { presentSite } from '../../presenters/sites';
import { SITE_SCHEDULES, type SiteSchedule } from '../../sites/cadence';
import { listWorkspaceSites, siteRuns } from '../../sites/reads';
import type { SiteWithLastAudit } from '../../sites/repository';
import { createSite, patchSite, removeSite, sitesIncluded } from '../../sites/service';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { featureGate } from '../feature-gate';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, type DashboardContext } from '../state';
import { SiteDetailPage } from './site-detail';
import { loadComparison, named } from './site-compare';
import { siteFindingRoutes } from './site-finding-routes';
import { siteCaller, siteInView, siteNotFound, siteRefusal, siteService, type Problem } from './site-lookup';
import { SitesPage, timingOfForm, type TimingValues } from './sites';

/** A refused schedule change: the site's page again, its form holding what was typed. */
type ScheduleRefusal = { typed: { schedule: string } & TimingValues; problem: Problem; status: number };

/**
 * `/sites` and `/test/sites` (pro and up): monitored sites — add, pause, resume, delete, change the
 * schedule, through the API's site service (one rule, one implementation) — and each site's page:
 * its schedule, score over time, latest changes, skipped runs, and a page per finding with its
 * history and triage (src/sites/triage.ts).
 */
export function sitePageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const gate = featureGate(deps, 'sites', 'Monitored sites need the pro plan');
  const editor = [requireLogin, requireRole('developer'), gate] as const;
  pages.get('/sites', requireLogin, (ctx) => renderList(ctx as DashboardContext, deps, {}));
  pages.post('/sites', ...editor, (ctx) => addSite(ctx as DashboardContext, deps));
  pages.post('/sites/:siteId/pause', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'pause'));
  pages.post('/sites/:siteId/resume', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'resume'));
  pages.post('/sites/:siteId/delete', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'delete'));
  pages.post('/sites/:siteId/schedule', ...editor, (ctx) => changeSchedule(ctx as DashboardContext, deps));
  pages.get('/sites/:siteId', requireLogin, gate, (ctx) => showSite(ctx as DashboardContext, deps));
  siteFindingRoutes(pages, deps, { viewer: [requireLogin, gate], editor: [...editor] });
}

async function addSite(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const form = await readForm(c);
  const domain = field(form, 'domain');
  const schedule = field(form, 'schedule');
  if (!(SITE_SCHEDULES as readonly string[]).includes(schedule))
    return renderList(c, deps, { domain, problem: siteRefusal(deps, 'Choose daily, weekly or monthly.'), status: 422 });
  try {
    await createSite(siteService(deps), await siteCaller(c, deps), {
      domain,
      schedule: schedule as SiteSchedule,
      ...timingOfForm(form),
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return renderList(c, deps, { domain, problem: siteRefusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(modePath(c.state.mode, '/sites'));
}

async function changeSite(c: DashboardContext, deps: DashboardDeps, action: 'pause' | 'resume' | 'delete') {
  const siteId = c.params.siteId ?? '';
  if (!hasIdShape('site', siteId)) return siteNotFound(c);
  try {
    const caller = await siteCaller(c, deps);
    if (action === 'delete') await removeSite(siteService(deps), caller, siteId);
    else await patchSite(siteService(deps), caller, siteId, { paused: action === 'pause' });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'site_not_found') return siteNotFound(c);
    return renderList(c, deps, { problem: siteRefusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(modePath(c.state.mode, '/sites'));
}

async function renderList(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { domain?: string; problem?: Problem; status?: number },
): Promise<void> {
  const caller = await siteCaller(c, deps);
  const allowed = sitesIncluded(caller.usage);
  const sites = allowed ? (await listWorkspaceSites(deps.db, caller, { limit: 200 })).rows : [];
  render(
    c,
    <Layout ctx={c} title="Sites">
      <SitesPage
        ctx={c}
        basePath={modePath(c.state.mode, '')}
        allowed={allowed}
        canEdit={may(c, 'developer')}
        schedules={SITE_SCHEDULES}
        sites={sites.map((site) => present(deps, site))}
        domain={extra.domain}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}

/** A site as the API shows it: its timing, next run and latest audit. */
function present(deps: DashboardDeps, site: SiteWithLastAudit) {
  return presentSite(site, { overrideMs: deps.config.siteScheduleOverrideMs, now: deps.clock.now() });
}

/** "Save schedule": the service PATCH /v1/sites/{id} calls, with its checks and messages. */
async function changeSchedule(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const siteId = c.params.siteId ?? '';
  if (!hasIdShape('site', siteId)) return siteNotFound(c);
  const form = await readForm(c);
  const schedule = field(form, 'schedule');
  const typed = {
    schedule,
    time_zone: field(form, 'time_zone'),
    at: field(form, 'at'),
    weekday: field(form, 'weekday'),
    day_of_month: field(form, 'day_of_month'),
  };
  if (!(SITE_SCHEDULES as readonly string[]).includes(schedule))
    return showSite(c, deps, { typed, problem: siteRefusal(deps, 'Choose daily, weekly or monthly.'), status: 422 });
  try {
    const body = { schedule: schedule as SiteSchedule, ...timingOfForm(form) };
    await patchSite(siteService(deps), await siteCaller(c, deps), siteId, body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'site_not_found') return siteNotFound(c);
    return showSite(c, deps, { typed, problem: siteRefusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(`${modePath(c.state.mode, `/sites/${siteId}`)}?saved=1`);
}

async function showSite(c: DashboardContext, deps: DashboardDeps, refused?: ScheduleRefusal): Promise<void> {
  const caller = await siteCaller(c, deps);
  const site = await siteInView(c, deps, caller);
  if (!site) return siteNotFound(c);
  const [points, triage, runs] = await Promise.all([
    siteAuditPoints(deps.db, site),
    siteTriage(deps.db, site.id),
    siteRuns(deps.db, caller, site.id, { limit: 50 }),
  ]);
  const comparison = await loadComparison(deps.db, site, c.query, triage, points);
  const oldestFirst = [...points].reverse();
  const shown = present(deps, site);
  const chosen = typeof c.query.from === 'string' || typeof c.query.to === 'string';
  render(
    c,
    <Layout ctx={c} title={site.domain}>
      <SiteDetailPage
        ctx={c}
        basePath={modePath(c.state.mode, '')}
        site={shown}
        canEdit={may(c, 'developer')}
        schedules={SITE_SCHEDULES}
        scheduleForm={refused?.typed ?? scheduleFormOf(shown)}
        saved={c.query.saved === '1'}
        problem={refused?.problem}
        points={oldestFirst.map((p) => ({
          auditId: p.auditId,
          completedAt: new Date(p.completedAt).toISOString(),
          score: p.score,
        }))}
        categoryPoints={oldestFirst.map((p) => ({
          auditId: p.auditId,
          completedAt: new Date(p.completedAt).toISOString(),
          categories: Object.fromEntries(
            Object.entries(p.basis?.categories ?? {}).map(([category, entry]) => [category, entry!.score]),
          ),
        }))}
        comparison={comparison}
        skipped={runs.rows
          .filter((r) => r.outcome === 'skipped')
          .map((r) => ({
            scheduledAt: new Date(r.scheduled_at).toISOString(),
            reason: r.skip_reason ?? 'unknown',
            message: r.skip_message ?? '',
          }))}
        findings={fingerprintHistories(points).map((h) => ({
          ...named(h),
          seenIn: h.seenIn.length,
          current: h.current,
          triage: triage.get(h.fingerprint)?.status ?? 'open',
        }))}
      />
    </Layout>,
    refused?.status ?? (comparison.problem && chosen ? 400 : 200),
  );
}

/** The schedule form as the site stands: its schedule and timing, the day it does not use empty. */
function scheduleFormOf(site: ReturnType<typeof present>): ScheduleRefusal['typed'] {
  return {
    schedule: site.schedule,
    time_zone: site.time_zone,
    at: site.at,
    weekday: site.weekday ?? '',
    day_of_month: site.day_of_month === null ? '' : String(site.day_of_month),
  };
}
