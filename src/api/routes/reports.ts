import Router from '@koa/router';
import { requireTier } from '../../accounts/tier-gate';
import type { Clock } from '../../clock';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { putBrandingBodySchema, type PutBrandingBody } from '../../schemas/api';
import { BrandingError, validateBranding } from '../../reports/branding';
import { brandingResource, brandingRevision, loadBranding, saveBranding } from '../../reports/branding-repository';
import { LogoChecks } from '../../reports/logo-checks';
import type { ReportRenderRequests } from '../../reports/render-requests';
import { checkReportLink, parseLinkParams, reportLinkUrl, signReportLink } from '../../reports/report-link';
import type { SigningKeyring } from '../../reports/signing-keys';
import type { ReportStorage } from '../../reports/storage';
import { findReport, renderedFromResult, reportIsCurrent } from '../../reports/stored-reports';
import { ApiError } from '../../errors';
import type { ApiState } from '../context';
import { readJsonBody } from '../middleware/json-body';
import { bodyValidator } from '../validation';
import type { ReadModel } from '../read-model';
import { identity, requireAudit, statusEnvelope } from './audits';

export interface ReportRouteDeps {
  db: Db;
  config: Config;
  clock: Clock;
  readModel: ReadModel;
  reports: ReportRenderRequests;
  storage: ReportStorage;
  keyring: SigningKeyring;
  baseUrl: () => string;
}

const validateBrandingBody = bodyValidator<PutBrandingBody>(putBrandingBodySchema);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// A rendering report is usually ready within a couple of seconds of the 202.
const RENDER_RETRY_AFTER_SECONDS = 2;

/** PDF reports (pro and up): the signed link to an audit's report, and the workspace's branding. */
export function reportRoutes(deps: ReportRouteDeps): Router<ApiState> {
  const router = new Router<ApiState>();
  // Decoding a logo is seconds of CPU at worst: done in a worker thread, one at a time.
  const logoChecks = new LogoChecks();

  router.get('/audits/:auditId/pdf', async (ctx) => {
    requireTier(ctx.state.usage, 'pdf_reports', 'PDF reports');
    const audit = await requireAudit(ctx, deps);
    if (audit.status !== 'completed') {
      ctx.body = statusEnvelope(audit);
      return;
    }
    const scope = { workspaceId: audit.workspace_id, mode: audit.mode };
    const revision = await brandingRevision(deps.db, scope);
    let report = await findReport(deps.db, audit.id);
    if (!reportIsCurrent(report, audit, revision)) {
      const subject = { auditId: audit.id, domain: audit.domain, ...scope };
      const outcome = await deps.reports.renderAndWait(subject, revision, deps.config.reportWaitMs);
      report = await findReport(deps.db, audit.id);
      // Branding changed again meanwhile: the render just finished still shows this result.
      if (outcome === 'pending' || !renderedFromResult(report, audit)) {
        ctx.status = 202;
        ctx.set('Retry-After', String(RENDER_RETRY_AFTER_SECONDS));
        ctx.body = {
          audit_id: audit.id,
          domain: audit.domain,
          status: 'rendering',
          estimated_completion: new Date(deps.clock.now().getTime() + RENDER_RETRY_AFTER_SECONDS * 1000).toISOString(),
        };
        return;
      }
    }
    const now = deps.clock.now();
    const { params, expiresAt } = signReportLink(await deps.keyring.signingKey(now), audit.id, now);
    ctx.body = { audit_id: audit.id, url: reportLinkUrl(deps.baseUrl(), params), expires_at: expiresAt.toISOString() };
  });

  router.get('/branding', async (ctx) => {
    requireTier(ctx.state.usage, 'branding', 'Report branding');
    const { workspaceId, mode } = identity(ctx);
    ctx.body = brandingResource(await loadBranding(deps.db, { workspaceId, mode }));
  });

  router.put('/branding', async (ctx) => {
    requireTier(ctx.state.usage, 'branding', 'Report branding');
    const body = validateBrandingBody(await readJsonBody(ctx, deps.config.maxBodyBytes));
    const { workspaceId, mode } = identity(ctx);
    const branding = await brandingFromBody(body, logoChecks);
    ctx.body = brandingResource(await saveBranding(deps.db, { workspaceId, mode }, branding, deps.clock.now()));
  });

  router.delete('/branding', async (ctx) => {
    requireTier(ctx.state.usage, 'branding', 'Report branding');
    const { workspaceId, mode } = identity(ctx);
    await saveBranding(deps.db, { workspaceId, mode }, null, deps.clock.now());
    ctx.status = 204;
  });

  return router;
}

/**
 * The signed report links, served without an API key: the signature is the credential. Mounted
 * before authentication.
 */
export function reportLinkRoutes(deps: Pick<ReportRouteDeps, 'db' | 'clock' | 'storage' | 'keyring'>): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get('/v1/reports/:file', async (ctx) => {
    const match = /^(aud_[A-Za-z0-9]{1,64})\.pdf$/.exec(ctx.params.file ?? '');
    const params = match ? parseLinkParams(match[1]!, ctx.query) : null;
    if (!params) throw new ApiError('invalid_signature', 'this report link is incomplete or malformed; request a new one with GET /v1/audits/{audit_id}/pdf');
    const rejection = checkReportLink(params, await deps.keyring.find(params.keyId), deps.clock.now());
    if (rejection === 'invalid_signature') throw new ApiError('invalid_signature', 'the signature of this report link is not valid; request a new one with GET /v1/audits/{audit_id}/pdf');
    if (rejection === 'link_expired') {
      throw new ApiError('link_expired', `this report link expired at ${new Date(params.expires * 1000).toISOString()}; request a new one with GET /v1/audits/{audit_id}/pdf`);
    }
    const report = await findReport(deps.db, params.auditId);
    const file = report ? await deps.storage.open(report.storage_key) : null;
    if (!report || !file) throw new ApiError('audit_not_found', `the report of audit ${params.auditId} no longer exists`);
    const audit = await deps.db('audits').where({ id: params.auditId }).first('domain', 'completed_at');
    ctx.set('Cache-Control', `private, max-age=${Math.max(0, params.expires - Math.floor(deps.clock.now().getTime() / 1000))}`);
    ctx.set('ETag', `"${report.sha256}"`);
    ctx.set('Content-Disposition', `inline; filename="${reportFileName(audit?.domain ?? params.auditId, audit?.completed_at ?? null)}"`);
    // The link carries a credential: keep it out of Referer headers and search indexes.
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Robots-Tag', 'noindex');
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (matchesIfNoneMatch(ctx.get('If-None-Match'), report.sha256)) {
      file.stream.destroy();
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/pdf';
    ctx.length = file.size;
    ctx.body = file.stream;
  });
  return router;
}

/**
 * RFC 9110 If-None-Match (weak comparison): `*` or any listed tag naming this content. Koa's
 * ctx.fresh is not used: it ignores the header when the request also says Cache-Control: no-cache,
 * which fetch() adds to every conditional request.
 */
function matchesIfNoneMatch(header: string, sha256: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === `"${sha256}"`);
}

/** e.g. audit-example.com-2026-11-21.pdf (ASCII only: the host is punycode already). */
function reportFileName(domain: string, completedAt: Date | null): string {
  const host = domain.replace(/^https?:\/\//, '').replace(/[^A-Za-z0-9.-]/g, '_');
  const day = completedAt ? new Date(completedAt).toISOString().slice(0, 10) : 'report';
  return `audit-${host}-${day}.pdf`;
}

async function brandingFromBody(body: PutBrandingBody, logoChecks: LogoChecks) {
  let logo: Buffer | undefined;
  if (typeof body.logo === 'string') {
    if (!BASE64.test(body.logo)) throw new ApiError('invalid_request', 'field logo must be base64-encoded PNG or JPEG bytes');
    logo = Buffer.from(body.logo, 'base64');
  }
  try {
    const branding = validateBranding({
      displayName: body.display_name,
      primaryColor: body.primary_color,
      footerText: body.footer_text ?? undefined,
      contactLine: body.contact_line ?? undefined,
      logo,
    });
    if (branding.logo) await logoChecks.check(branding.logo);
    return branding;
  } catch (err) {
    if (err instanceof BrandingError) throw new ApiError('invalid_request', `field ${snakeCase(err.field)} ${err.message.replace(/^branding\.\w+: /, '')}`);
    throw err;
  }
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
