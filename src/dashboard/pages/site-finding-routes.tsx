import type Koa from 'koa';
import { findCatalogEntry } from '../../analyzers/catalog';
import { ApiError } from '../../errors';
import { hasIdShape } from '../../ids';
import { fingerprintHistories, siteAuditPoints, siteTriage } from '../../monitoring/site-history';
import { setTriage, TRIAGE_STATUSES, type TriageStatus } from '../../sites/triage';
import { may } from '../access';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext, type DashboardState } from '../state';
import { SiteFindingPage } from './site-finding';
import { siteInView, siteNotFound, siteRefusal, type Problem } from './site-lookup';

/** As the API's PUT …/findings/{fingerprint} body (src/schemas/api-sites.ts). */
const NOTE_MAX = 2000;

type Guards = Koa.Middleware<DashboardState>[];

/**
 * `/sites/{id}/findings/{fingerprint}`: a finding's history across the site's audits and its triage
 * (src/sites/triage.ts), behind the sites pages' guards (log-in, tier gate; the developer role to save).
 */
export function siteFindingRoutes(pages: PageRoutes, deps: DashboardDeps, guards: { viewer: Guards; editor: Guards }) {
  pages.get('/sites/:siteId/findings/:fingerprint', ...guards.viewer, (ctx) =>
    showFinding(ctx as DashboardContext, deps, {}),
  );
  pages.post('/sites/:siteId/findings/:fingerprint', ...guards.editor, (ctx) =>
    saveTriage(ctx as DashboardContext, deps),
  );
}

async function showFinding(
  c: DashboardContext,
  deps: DashboardDeps,
  extra: { problem?: Problem; status?: number; note?: string },
): Promise<void> {
  const site = await siteInView(c, deps);
  const fingerprint = c.params.fingerprint ?? '';
  if (!site || !hasIdShape('fingerprint', fingerprint)) return siteNotFound(c);
  const [points, triage] = await Promise.all([siteAuditPoints(deps.db, site), siteTriage(deps.db, site.id)]);
  const history = fingerprintHistories(points).find((h) => h.fingerprint === fingerprint);
  if (!history) return siteNotFound(c);
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
  if (!site || !hasIdShape('fingerprint', fingerprint)) return siteNotFound(c);
  const form = await readForm(c);
  const status = field(form, 'status');
  const note = field(form, 'note');
  if (!(TRIAGE_STATUSES as readonly string[]).includes(status))
    return showFinding(c, deps, { note, problem: siteRefusal(deps, 'Choose open, ignored or accepted.'), status: 422 });
  if (note.length > NOTE_MAX)
    return showFinding(c, deps, {
      note,
      problem: siteRefusal(deps, `Keep the note under ${NOTE_MAX} characters.`),
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
    return showFinding(c, deps, { note, problem: siteRefusal(deps, err.message), status: err.status });
  }
  c.status = 303;
  c.redirect(`${modePath(c.state.mode, `/sites/${site.id}/findings/${fingerprint}`)}?saved=1`);
}
