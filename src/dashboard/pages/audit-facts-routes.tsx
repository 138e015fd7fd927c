import { iterateAuditPages, listFindingUrls } from '../../audits/crawl-facts-store';
import { listOrderedAuditPages } from '../../audits/page-order';
import { ApiError } from '../../errors';
import { presentAuditStatus, presentFindings } from '../../presenters/audits';
import { presentAuditPage } from '../../presenters/crawl-facts';
import { csvStream, PAGE_CSV_COLUMNS } from '../../presenters/crawl-exports';
import { decodePositionCursor, encodePositionCursor, type ListKey } from '../../presenters/position-cursor';
import type { Finding } from '../../schemas/audit';
import { requireLogin } from '../access';
import type { DashboardDeps } from '../deps';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render, renderStatus } from '../render';
import { modePath, type DashboardContext } from '../state';
import { urlCount } from './audit-findings';
import { FindingUrlsPage, type FindingUrlRow } from './audit-finding';
import { auditInView, auditNotFound, auditOutlineInView } from './audit-lookup';
import { AuditPagesPage } from './audit-pages';
import { decodePagesCursor, encodePagesCursor, pagesQuery } from './audit-pages-query';
import { runningEstimateInputs } from '../../audits/estimate';

/** Rows per page of the pages view and of a finding's URLs. */
const PAGE_SIZE = 50;

/**
 * An audit's crawl facts in the dashboard (docs/dashboard.md): the pages view and its CSV, each
 * finding's URLs a page at a time, and the status the audit page's script follows while it runs —
 * the same reads and presenters as the API's routes (src/api/routes/audit-pages.ts, audit-exports.ts).
 */
export function auditFactRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/audits/:auditId/status', requireLogin, (ctx) => statusJson(ctx as DashboardContext, deps));
  pages.get('/audits/:auditId/pages', requireLogin, (ctx) => showPages(ctx as DashboardContext, deps));
  pages.get('/audits/:auditId/pages.csv', requireLogin, (ctx) => pagesCsv(ctx as DashboardContext, deps));
  pages.get('/audits/:auditId/findings/:findingId', requireLogin, (ctx) =>
    showFindingUrls(ctx as DashboardContext, deps),
  );
}

/** The API's status envelope of the audit, for the audit page's script. */
async function statusJson(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const row = await auditInView(c, deps);
  c.set('Cache-Control', 'no-store');
  if (!row) {
    c.status = 404;
    c.body = { error: { code: 'audit_not_found', message: 'There is no such audit in this workspace and mode.' } };
    return;
  }
  c.body = presentAuditStatus(row, await runningEstimateInputs(deps.db, deps.config.pageBudgets));
}

async function showPages(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const audit = await auditOutlineInView(c, deps);
  if (!audit) return auditNotFound(c);
  const query = pagesQuery(c.query);
  const problems = [...query.invalid];
  const after = query.cursor === undefined ? undefined : decodePagesCursor(query.cursor, audit.id, query.order);
  if (after === null) problems.push('This page of the list no longer exists: start again from the first page.');
  const completed = audit.status === 'completed';
  const page = completed
    ? await listOrderedAuditPages(deps.db, audit.id, {
        ...query.filter,
        order: query.order,
        limit: PAGE_SIZE,
        after: after ?? undefined,
      })
    : { rows: [], hasMore: false };
  const last = page.rows[page.rows.length - 1];
  render(
    c,
    <Layout ctx={c} title={`Pages of ${audit.domain}`}>
      <AuditPagesPage
        auditBase={modePath(c.state.mode, `/audits/${audit.id}`)}
        completed={completed}
        form={query.form}
        order={query.order}
        rows={page.rows.map(presentAuditPage)}
        nextCursor={
          page.hasMore && last ? encodePagesCursor(audit.id, query.order, { key: last.sort_key, seq: last.seq }) : null
        }
        later={!!after}
        problems={problems}
      />
    </Layout>,
    problems.length ? 400 : 200,
  );
}

/** pages.csv as the API serves it: every page in crawl order, streamed a chunk at a time. */
async function pagesCsv(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const audit = await auditOutlineInView(c, deps);
  if (!audit || audit.status !== 'completed') return auditNotFound(c);
  async function* rows() {
    for await (const page of iterateAuditPages(deps.db, audit!.id)) yield presentAuditPage(page);
  }
  const failed = (err: Error) => deps.log?.(`dashboard pages.csv of ${audit.id} stopped streaming`, err);
  c.status = 200;
  c.set('Content-Disposition', `attachment; filename="${audit.id}-pages.csv"`);
  c.set('Cache-Control', 'no-store');
  c.type = 'text/csv; charset=utf-8';
  c.body = csvStream(PAGE_CSV_COLUMNS, rows(), failed);
}

async function showFindingUrls(c: DashboardContext, deps: DashboardDeps): Promise<void> {
  const row = await auditInView(c, deps);
  const findings = row ? (presentFindings(row) as Finding[] | null) : null;
  const finding = findings?.find((f) => f.id === c.params.findingId);
  if (!row || !finding)
    return renderStatus(c, 404, 'Finding not found', 'There is no such finding in this audit, workspace and mode.');
  const list: ListKey = ['finding_urls', row.id, finding.id];
  let after: number | undefined;
  let problem: string | undefined;
  if (typeof c.query.cursor === 'string') {
    try {
      after = decodePositionCursor(c.query.cursor, list);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      problem = 'This page of the list no longer exists: start again from the first page.';
    }
  }
  const page = await findingUrlsPage(deps, row.id, finding, after);
  const last = page.rows[page.rows.length - 1];
  render(
    c,
    <Layout ctx={c} title={finding.title.replace(/`/g, '')}>
      <FindingUrlsPage
        auditBase={modePath(c.state.mode, `/audits/${row.id}`)}
        finding={finding}
        count={urlCount(finding)}
        rows={page.rows}
        nextCursor={page.hasMore && last ? encodePositionCursor(list, last.position) : null}
        later={after !== undefined}
        problem={problem}
      />
    </Layout>,
    problem ? 400 : 200,
  );
}

/**
 * A page of the finding's URLs from audit_finding_urls; for an audit stored before its facts, the
 * same page of the URLs its JSON lists (the first 100), so the audit page's "Next" works there too.
 */
async function findingUrlsPage(
  deps: DashboardDeps,
  auditId: string,
  finding: Finding,
  after: number | undefined,
): Promise<{ rows: FindingUrlRow[]; hasMore: boolean }> {
  const page = await listFindingUrls(deps.db, auditId, finding.id, { limit: PAGE_SIZE, after });
  if (page.rows.length > 0) return page;
  const stored = after !== undefined && (await listFindingUrls(deps.db, auditId, finding.id, { limit: 1 })).rows.length;
  if (stored) return page;
  const start = after === undefined ? 0 : after + 1;
  const rows = finding.urls
    .slice(start, start + PAGE_SIZE)
    .map((url, k) => ({ position: start + k, url, depth: null, referrers: null }));
  return { rows, hasMore: start + PAGE_SIZE < finding.urls.length };
}
