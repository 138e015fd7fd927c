import { findCatalogEntry } from '../../analyzers/catalog';
import { accountUsage } from '../../accounts/usage';
import { tierAtLeast, FEATURE_MIN_TIER } from '../../accounts/tiers';
import { ApiError } from '../../errors';
import { hasIdShape, newRequestId } from '../../ids';
import { fingerprintHistories, siteAuditPoints, siteTriage } from '../../monitoring/site-history';
import { SITE_SCHEDULES, siteTiming, type SiteSchedule } from '../../sites/cadence';
import { listRuns, listSites, withLastAudits, type SiteRow } from '../../sites/repository';
import { createSite, getSite, patchSite, removeSite, type SiteCaller } from '../../sites/service';
import { setTriage, TRIAGE_STATUSES, type TriageStatus } from '../../sites/triage';
import { may, requireLogin, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { featureGate } from '../feature-gate';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';
import { SiteDetailPage } from './site-detail';
import { loadComparison, named } from './site-compare';
import { SiteFindingPage } from './site-finding';
import { SitesPage, timingOfForm } from './sites';

type Problem = { message: string; requestId: string };
/** As the API's PUT …/findings/{fingerprint} body (src/schemas/api-sites.ts). */
const NOTE_MAX = 2000;

/**
 * `/sites` and `/test/sites` (pro and up): monitored sites — add, pause, resume, delete through the
 * API's site service (one rule, one implementation) — and each site's page: score over time, latest
 * changes, skipped runs, and a page per finding with its history and triage (src/sites/triage.ts).
 */
export function sitePageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const gate = featureGate(deps, 'sites', 'Monitored sites need the pro plan');
  const editor = [requireLogin, requireRole('developer'), gate] as const;
  pages.get('/sites', requireLogin, (ctx) => renderList(ctx as DashboardContext, deps, {}));
  pages.post('/sites', ...editor, (ctx) => addSite(ctx as DashboardContext, deps));
  pages.post('/sites/:siteId/pause', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'pause'));
  pages.post('/sites/:siteId/resume', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'resume'));
  pages.post('/sites/:siteId/delete', ...editor, (ctx) => changeSite(ctx as DashboardContext, deps, 'delete'));
  pages.get('/sites/:siteId', requireLogin, gate, (ctx) => showSite(ctx as DashboardContext, deps));
  pages.get('/sites/:siteId/findings/:fingerprint', requireLogin, gate, (ctx) =>
    showFinding(ctx as DashboardContext, deps, {}),
  );
  pages.post('/sites/:siteId/findings/:fingerprint', ...editor, (ctx) => saveTriage(ctx as DashboardContext, deps));
}

async function siteCaller(c: DashboardContext, deps: DashboardDeps): Promise<SiteCaller> {
  const me = signedIn(c);
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  return { workspaceId: me.workspace.id, accountId: me.workspace.accountId, mode: c.state.mode, usage };
}

function service(deps: DashboardDeps) {
  return { db: deps.db, clock: deps.clock, config: deps.config, schedules: deps.siteSchedules, log: deps.log };
}

async function addSite(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const form = await readForm(c);
  const domain = field(form, 'domain');
  const schedule = field(form, 'schedule');
  if (!(SITE_SCHEDULES as readonly string[]).includes(schedule))
    return renderList(c, deps, { domain, problem: refusal(deps, 'Choose daily, weekly or monthly.'), status: 422 });
  try {
    await createSite(service(deps), await siteCaller(c, deps), {
      domain,
      schedule: schedule as SiteSchedule,
      ...timingOfForm(form),
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return renderList(c, deps, { domain, problem: refusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(modePath(c.state.mode, '/sites'));
}

async function changeSite(c: DashboardContext, deps: DashboardDeps, action: 'pause' | 'resume' | 'delete') {
  const siteId = c.params.siteId ?? '';
  if (!hasIdShape('site', siteId)) return notFound(c);
  try {
    const caller = await siteCaller(c, deps);
    if (action === 'delete') await removeSite(service(deps), caller, siteId);
    else await patchSite(service(deps), caller, siteId, { paused: action === 'pause' });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'site_not_found') return notFound(c);
    return renderList(c, deps, { problem: refusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(modePath(c.state.mode, '/sites'));
}

async function renderList(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { domain?: string; problem?: Problem; status?: number },
): Promise<void> {
  const me = signedIn(c);
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  const allowed = tierAtLeast(usage.tier, FEATURE_MIN_TIER.sites);
  const scope = { workspaceId: me.workspace.id, mode: c.state.mode };
  const rows = allowed ? (await listSites(deps.db, scope, { limit: 200 })).rows : [];
  const sites = await withLastAudits(deps.db, rows as SiteRow[]);
  render(
    c,
    <Layout ctx={c} title="Sites">
      <SitesPage
        ctx={c}
        basePath={modePath(c.state.mode, '')}
        allowed={allowed}
        canEdit={may(c, 'developer')}
        schedules={SITE_SCHEDULES}
        sites={sites.map((s) => ({
          site_id: s.id,
          domain: s.domain,
          schedule: s.schedule,
          ...siteTiming(s),
          paused: s.paused,
          paused_reason: s.paused_reason,
          last_audit_id: s.last_audit_id,
          created_at: new Date(s.created_at).toISOString(),
        }))}
        domain={extra.domain}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}

async function siteInView(c: DashboardContext, deps: DashboardDeps): Promise<SiteRow | undefined> {
  const siteId = c.params.siteId ?? '';
  if (!hasIdShape('site', siteId)) return undefined;
  try {
    return await getSite(deps.db, await siteCaller(c, deps), siteId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'site_not_found') return undefined;
    throw err;
  }
}

async function showSite(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const site = await siteInView(c, deps);
  if (!site) return notFound(c);
  const [points, triage, runs] = await Promise.all([
    siteAuditPoints(deps.db, site),
    siteTriage(deps.db, site.id),
    listRuns(deps.db, site.id, { limit: 50 }),
  ]);
  const comparison = await loadComparison(deps.db, site, c.query, triage, points);
  const oldestFirst = [...points].reverse();
  render(
    c,
    <Layout ctx={c} title={site.domain}>
      <SiteDetailPage
        basePath={modePath(c.state.mode, '')}
        site={{ site_id: site.id, domain: site.domain, schedule: site.schedule, paused: site.paused }}
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
    comparison.problem && Object.keys(c.query).length ? 400 : 200,
  );
}

async function showFinding(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { problem?: Problem; status?: number; note?: string },
): Promise<void> {
  const site = await siteInView(c, deps);
  const fingerprint = c.params.fingerprint ?? '';
  if (!site || !hasIdShape('fingerprint', fingerprint)) return notFound(c);
  const [points, triage] = await Promise.all([siteAuditPoints(deps.db, site), siteTriage(deps.db, site.id)]);
  const history = fingerprintHistories(points).find((h) => h.fingerprint === fingerprint);
  if (!history) return notFound(c);
  const entry = findCatalogEntry(history.analyzer);
  const current = triage.get(fingerprint) ?? { status: 'open', note: null };
  render(
    c,
    <Layout ctx={c} title={entry?.title ?? fingerprint}>
      <SiteFindingPage
        ctx={c}
        basePath={modePath(c.state.mode, '')}
        site={{ site_id: site.id, domain: site.domain }}
        finding={{ fingerprint, title: entry?.title ?? fingerprint, severity: history.severity, why: entry?.why ?? '' }}
        audits={points.map((p) => ({
          auditId: p.auditId,
          completedAt: new Date(p.completedAt).toISOString(),
          score: p.score,
          found: p.basis ? history.seenIn.includes(p.auditId) : null,
        }))}
        triage={extra.note === undefined ? current : { ...current, note: extra.note }}
        triageStatuses={TRIAGE_STATUSES}
        canEdit={may(c, 'developer')}
        saved={c.query.saved === '1'}
        problem={extra.problem}
      />
    </Layout>,
    extra.status ?? 200,
  );
}

/** "Save triage": B2's setTriage, as PUT /v1/sites/{id}/findings/{fingerprint} does, set by this user. */
async function saveTriage(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const site = await siteInView(c, deps);
  const fingerprint = c.params.fingerprint ?? '';
  if (!site || !hasIdShape('fingerprint', fingerprint)) return notFound(c);
  const form = await readForm(c);
  const status = field(form, 'status');
  const note = field(form, 'note');
  if (!(TRIAGE_STATUSES as readonly string[]).includes(status))
    return showFinding(c, deps, { note, problem: refusal(deps, 'Choose open, ignored or accepted.'), status: 422 });
  if (note.length > NOTE_MAX)
    return showFinding(c, deps, {
      note,
      problem: refusal(deps, `Keep the note under ${NOTE_MAX} characters.`),
      status: 422,
    });
  try {
    await setTriage(deps.db, site, {
      fingerprint,
      status: status as TriageStatus,
      note: note === '' ? null : note,
      setBy: `user:${signedIn(c).user.id}`,
      now: deps.clock.now(),
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return showFinding(c, deps, { note, problem: refusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(`${modePath(c.state.mode, `/sites/${site.id}/findings/${fingerprint}`)}?saved=1`);
}

function refusal(deps: DashboardDeps, message: string): Problem {
  const requestId = newRequestId();
  deps.log?.(`dashboard site request refused (${requestId}): ${message}`);
  return { message, requestId };
}

function notFound(c: DashboardContext): void {
  renderStatus(c, 404, 'Not found', 'There is no such site or finding in this workspace and mode.');
}
