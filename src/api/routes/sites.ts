import Router from '@koa/router';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { ApiError } from '../../errors';
import { hasIdShape } from '../../ids';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { presentPage } from '../../presenters/page';
import { presentHistoryEntry, presentSite, presentSiteRun, presentTriage } from '../../presenters/sites';
import { csvStream } from '../../presenters/crawl-exports';
import { presentHistoryCsvRow, SITE_HISTORY_CSV_COLUMNS } from '../../presenters/site-history-csv';
import {
  createSiteBodySchema,
  pageQuerySchema,
  patchSiteBodySchema,
  putTriageBodySchema,
  siteHistoryCsvQuerySchema,
  type CreateSiteBody,
  type PageQuery,
  type PatchSiteBody,
  type PutTriageBody,
  type SiteHistoryCsvQuery,
} from '../../schemas/api';
import { iterateSiteHistory } from '../../sites/history-export';
import { listWorkspaceSites, siteHistory, siteRuns } from '../../sites/reads';
import type { SiteWithLastAudit } from '../../sites/repository';
import type { SiteSchedules } from '../../sites/schedule-sync';
import { createSite, getSite, patchSite, removeSite, type SiteCaller } from '../../sites/service';
import { setTriage } from '../../sites/triage';
import { caller, type ApiContext, type ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { tierGate } from '../middleware/tier-gate';
import { bodyValidator, queryValidator } from '../validation';
import { sendCsv } from './audit-exports';

const validateCreate = bodyValidator<CreateSiteBody>(createSiteBodySchema);
const validatePatch = bodyValidator<PatchSiteBody>(patchSiteBodySchema);
const validateTriage = bodyValidator<PutTriageBody>(putTriageBodySchema);
const validatePage = queryValidator<PageQuery>(pageQuerySchema);
const validateHistoryCsv = queryValidator<SiteHistoryCsvQuery>(siteHistoryCsvQuerySchema);

export interface SiteRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  siteSchedules: SiteSchedules;
  log?: (message: string, err?: unknown) => void;
}

/** Monitored sites (README "Monitoring"): each a Temporal Schedule of audits. Pro and up. */
export function siteRoutes(deps: SiteRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  const service = { ...deps, schedules: deps.siteSchedules };
  const present = (site: SiteWithLastAudit) =>
    presentSite(site, { overrideMs: deps.config.siteScheduleOverrideMs, now: deps.clock.now() });

  router.post('/sites', tierGate('sites'), async (ctx) => {
    const body = validateCreate(await readJsonBody(ctx, deps.config.maxBodyBytes));
    ctx.status = 201;
    ctx.body = present(await createSite(service, siteCaller(ctx), body));
  });

  router.get('/sites', tierGate('sites'), async (ctx) => {
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'site') : undefined;
    ctx.body = presentPage(
      await listWorkspaceSites(deps.db, siteCaller(ctx), { limit: page.limit ?? 50, after }),
      present,
      encodeCursor,
    );
  });

  router.get('/sites/:siteId', tierGate('sites'), async (ctx) => {
    ctx.body = present(await getSite(deps.db, siteCaller(ctx), siteIdOf(ctx)));
  });

  router.patch('/sites/:siteId', tierGate('sites'), async (ctx) => {
    const siteId = siteIdOf(ctx);
    const body = validatePatch(await readJsonBody(ctx, deps.config.maxBodyBytes));
    ctx.body = present(await patchSite(service, siteCaller(ctx), siteId, body));
  });

  router.delete('/sites/:siteId', tierGate('sites'), async (ctx) => {
    await removeSite(service, siteCaller(ctx), siteIdOf(ctx));
    ctx.status = 204;
  });

  historyRoutes(router, deps);

  router.get('/sites/:siteId/runs', tierGate('sites'), async (ctx) => {
    const siteId = siteIdOf(ctx);
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'site_run') : undefined;
    ctx.body = presentPage(
      await siteRuns(deps.db, siteCaller(ctx), siteId, { limit: page.limit ?? 50, after }),
      presentSiteRun,
      (row) => encodeCursor({ created_at: row.scheduled_at, id: row.id }),
    );
  });

  router.put('/sites/:siteId/findings/:fingerprint', tierGate('sites'), async (ctx) => {
    const site = await getSite(deps.db, siteCaller(ctx), siteIdOf(ctx));
    const fingerprint = ctx.params.fingerprint;
    if (!hasIdShape('fingerprint', fingerprint))
      throw new ApiError('invalid_request', 'path parameter fingerprint must look like fp_ followed by a-z and 0-9');
    const body = validateTriage(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const { identity } = caller(ctx);
    const row = await setTriage(deps.db, site, {
      fingerprint,
      status: body.status,
      note: body.note ?? null,
      setBy: `key:${identity.keyId}`,
      now: deps.clock.now(),
    });
    ctx.body = presentTriage(row);
  });

  return router;
}

/** A site's completed audits: a page at a time as JSON, or all of them as a CSV download. */
function historyRoutes(router: Router<ApiState>, deps: SiteRouteDeps): void {
  router.get('/sites/:siteId/history', tierGate('sites'), async (ctx) => {
    const siteId = siteIdOf(ctx);
    const page = validatePage({ ...ctx.query });
    const after = page.cursor ? decodeCursor(page.cursor, 'audit') : undefined;
    ctx.body = presentPage(
      await siteHistory(deps.db, siteCaller(ctx), siteId, { limit: page.limit ?? 50, after }),
      presentHistoryEntry,
      (row) => encodeCursor({ created_at: row.completed_at, id: row.id }),
    );
  });

  // Streamed (docs/decisions.md, "Pages and exports").
  router.get('/sites/:siteId/history.csv', tierGate('sites'), async (ctx) => {
    const site = await getSite(deps.db, siteCaller(ctx), siteIdOf(ctx));
    const query = validateHistoryCsv({ ...ctx.query });
    async function* rows() {
      const filter = { completedAfter: query.completed_after, completedBefore: query.completed_before };
      for await (const row of iterateSiteHistory(deps.db, site, filter)) yield presentHistoryCsvRow(row);
    }
    const failed = (err: Error) =>
      deps.log?.(`${ctx.method} ${ctx.path} stopped streaming (${ctx.state.requestId})`, err);
    sendCsv(ctx, `${site.id}-history.csv`, csvStream(SITE_HISTORY_CSV_COLUMNS, rows(), failed));
  });
}

function siteCaller(ctx: ApiContext): SiteCaller {
  const { identity, usage } = caller(ctx);
  return { workspaceId: identity.workspaceId, accountId: identity.accountId, mode: identity.mode, usage };
}

/** Ids of another shape are answered 404 without a lookup, and not echoed: they may hold anything. */
function siteIdOf(ctx: ApiContext): string {
  const siteId = ctx.params.siteId;
  if (!hasIdShape('site', siteId)) throw new ApiError('site_not_found', 'no site with this id in this workspace');
  return siteId;
}
