import { accountUsage } from '../../accounts/usage';
import { featureIncluded, tiersWithin } from '../../accounts/tier-gate';
import { listAudits, type AuditRow, type ListFilter } from '../../audits/repository';
import { triggerAudit } from '../../audits/trigger';
import { ApiError } from '../../errors';
import { newRequestId } from '../../ids';
import { completedAuditJson, presentAuditStatus, presentAuditSummary } from '../../presenters/audits';
import { decodeCursor, encodeCursor } from '../../presenters/cursor';
import { presentPage } from '../../presenters/page';
import { requestReportLink } from '../../reports/report-request';
import { TIERS, type AuditJson, type Tier } from '../../schemas/audit';
import { requireLogin, may, requireRole } from '../access';
import type { DashboardDeps } from '../deps';
import { featureGate } from '../feature-gate';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';
import { AuditDetailPage } from './audit-detail';
import { auditInView, auditNotFound } from './audit-lookup';
import { auditFactRoutes } from './audit-facts-routes';
import { AUDIT_STATUSES_SHOWN } from './audits-labels';
import { AuditsPage, type AuditFilters } from './audits';
import { runningEstimateInputs } from '../../audits/estimate';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * `/audits` and `/test/audits`: the list with the API's filters, the run form (the API's trigger:
 * same quota, burst, first-free, tier gate and outbound policy, charged alike), each audit's page
 * and its stored JSON as a download.
 */
export function auditPageRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/audits', requireLogin, (ctx) => renderList(ctx as DashboardContext, deps));
  pages.post('/audits', requireLogin, requireRole('developer'), (ctx) => runAudit(ctx as DashboardContext, deps));
  pages.get('/audits/:auditId', requireLogin, (ctx) => showAudit(ctx as DashboardContext, deps));
  pages.get(
    '/audits/:auditId/pdf',
    requireLogin,
    featureGate(deps, 'pdf_reports', 'PDF reports need the pro plan'),
    (ctx) => openReport(ctx as DashboardContext, deps),
  );
  pages.get('/audits/:auditId/json', requireLogin, (ctx) => downloadJson(ctx as DashboardContext, deps));
  auditFactRoutes(pages, deps);
}

/** "Run audit": the API's trigger with the signed-in user's workspace and mode, charged alike. */
async function runAudit(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const me = signedIn(c);
  const form = await readForm(c);
  const domain = field(form, 'domain');
  const tier = field(form, 'tier');
  try {
    const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
    const identity = {
      keyId: `user:${me.user.id}`,
      workspaceId: me.workspace.id,
      accountId: me.workspace.accountId,
      mode: c.state.mode,
      revoked: false,
      allowedCidrs: null,
    };
    const body = { domain, ...((TIERS as readonly string[]).includes(tier) ? { tier: tier as Tier } : {}) };
    const result = await triggerAudit(deps, { identity, usage }, body);
    c.redirect(modePath(c.state.mode, `/audits/${result.response.audit_id}`));
    c.status = 303;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    const requestId = newRequestId();
    deps.log?.(`dashboard audit refused (${requestId}): ${err.code}`);
    await renderList(c, deps, { problem: { message: err.message, requestId }, domain, status: err.status });
  }
}

async function showAudit(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const row = await auditInView(c, deps);
  if (!row) return auditNotFound(c);
  const usage = await accountUsage(deps.db, row.account_id, deps.clock.now());
  const json = completedAuditJson(row);
  render(
    c,
    <Layout ctx={c} title={`Audit of ${row.domain}`}>
      <AuditDetailPage
        basePath={modePath(c.state.mode, '')}
        plansHref="/plan"
        status={{
          ...presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets)),
          pages_crawled: row.pages_crawled,
        }}
        result={json === null ? null : (JSON.parse(json) as AuditJson)}
        pdfAllowed={featureIncluded(usage, 'pdf_reports')}
      />
    </Layout>,
  );
}

/** The PDF through the API's render-and-sign step, then a redirect to the signed link. */
async function openReport(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const row = await auditInView(c, deps);
  if (!row || row.status !== 'completed') return auditNotFound(c);
  const link = await requestReportLink(deps, row);
  if (link === 'rendering')
    return renderStatus(
      c,
      202,
      'The PDF report is being prepared',
      'It is usually ready within a few seconds: use the PDF link on the audit page again.',
    );
  c.status = 303;
  c.redirect(link.url);
}

async function downloadJson(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const row = await auditInView(c, deps);
  const json = row ? completedAuditJson(row) : null;
  if (!row || json === null) return auditNotFound(c);
  // The stored bytes as they are: identical to GET /v1/audits/{id} and the webhook body.
  c.type = 'application/json';
  c.set('Content-Disposition', `attachment; filename="${row.id}.json"`);
  c.set('Cache-Control', 'no-store');
  c.body = json;
}

async function renderList(
  c: DashboardContext,
  deps: DashboardDeps,
  refused?: { problem: { message: string; requestId: string }; domain: string; status: number },
): Promise<void> {
  const me = signedIn(c);
  const { filters, invalid } = listFilters(c.query);
  let page: { rows: AuditRow[]; hasMore: boolean } = { rows: [], hasMore: false };
  let problem = refused?.problem ?? (invalid.length ? { message: invalid.join(' '), requestId: '' } : undefined);
  try {
    const filter: ListFilter = {
      workspaceId: me.workspace.id,
      mode: c.state.mode,
      limit: 50,
      after: typeof c.query.cursor === 'string' ? decodeCursor(c.query.cursor, 'audit') : undefined,
      status: filters.status as ListFilter['status'],
      completedAfter: filters.completed_after && `${filters.completed_after}T00:00:00.000Z`,
      // "Completed before" a day includes that whole day.
      completedBefore: filters.completed_before && nextDay(filters.completed_before),
    };
    page = await listAudits(deps.db, filter);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    problem = { message: 'This page of the list no longer exists: start again from the first page.', requestId: '' };
  }
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  const listed = presentPage(page, presentAuditSummary, encodeCursor);
  render(
    c,
    <Layout ctx={c} title="Audits">
      <AuditsPage
        basePath={modePath(c.state.mode, '')}
        csrfToken={me.csrfToken}
        canRun={may(c, 'developer')}
        tiers={tiersWithin(usage)}
        audits={listed.data}
        filters={filters}
        nextCursor={listed.next_cursor}
        problem={problem?.requestId === '' ? { message: problem.message } : problem}
        domain={refused?.domain}
      />
    </Layout>,
    refused?.status ?? (invalid.length ? 400 : 200),
  );
}

/**
 * The list's filters (days as YYYY-MM-DD) from the query string, and a sentence for each one that is
 * given but not valid: the list is shown without it, and says so.
 */
function listFilters(query: Record<string, unknown>): { filters: AuditFilters; invalid: string[] } {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
  const invalid: string[] = [];
  const status = text('status');
  const statusShown = (AUDIT_STATUSES_SHOWN as readonly string[]).includes(status);
  if (status && !statusShown)
    invalid.push(`Status must be one of ${AUDIT_STATUSES_SHOWN.join(', ')}; the list ignores it.`);
  const day = (name: string, label: string) => {
    const raw = text(name);
    if (raw && !validDay(raw))
      invalid.push(`${label} must be a day from ${FIRST_DAY} to ${LAST_DAY}, written YYYY-MM-DD; the list ignores it.`);
    return raw && validDay(raw) ? raw : undefined;
  };
  const filters = {
    status: statusShown ? status : undefined,
    completed_after: day('completed_after', 'Completed after'),
    completed_before: day('completed_before', 'Completed before'),
  };
  return { filters, invalid };
}

// Postgres has no year 0; years past 9999 are not written YYYY.
const FIRST_DAY = '0001-01-01';
const LAST_DAY = '9999-12-31';

/** A day that exists in the calendar (not 2026-02-30) within the years Postgres and the form can hold. */
function validDay(raw: string): boolean {
  if (!DAY.test(raw) || raw < FIRST_DAY) return false;
  const [year, month, day] = raw.split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The start of the next day; none after the last day (every time is before year 10000). */
function nextDay(day: string): string | undefined {
  return day === LAST_DAY ? undefined : new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString();
}
