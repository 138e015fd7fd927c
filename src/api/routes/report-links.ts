import Router from '@koa/router';
import { loadAuditHeadline } from '../../audits/repository';
import type { Clock } from '../../clock';
import type { Db } from '../../db/knex';
import { checkReportLink, parseLinkParams } from '../../reports/report-link';
import type { SigningKeyring } from '../../reports/signing-keys';
import type { ReportStorage } from '../../reports/storage';
import { findReport } from '../../reports/stored-reports';
import { ApiError } from '../../errors';
import type { ApiState } from '../context';

const REQUEST_A_NEW_LINK = 'request a new one with GET /v1/audits/{audit_id}/pdf';

/**
 * The signed report links, served without an API key: the signature is the credential. Mounted
 * before authentication.
 */
export function reportLinkRoutes(deps: {
  db: Db;
  clock: Clock;
  storage: ReportStorage;
  keyring: SigningKeyring;
}): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get('/v1/reports/:file', async (ctx) => {
    const match = /^(aud_[A-Za-z0-9]{1,64})\.pdf$/.exec(ctx.params.file ?? '');
    const params = match ? parseLinkParams(match[1]!, ctx.query) : null;
    if (!params)
      throw new ApiError('invalid_signature', `this report link is incomplete or malformed; ${REQUEST_A_NEW_LINK}`);
    const rejection = checkReportLink(params, await deps.keyring.find(params.keyId), deps.clock.now());
    if (rejection === 'invalid_signature')
      throw new ApiError('invalid_signature', `the signature of this report link is not valid; ${REQUEST_A_NEW_LINK}`);
    if (rejection === 'link_expired')
      throw new ApiError(
        'link_expired',
        `this report link expired at ${new Date(params.expires * 1000).toISOString()}; ${REQUEST_A_NEW_LINK}`,
      );
    const report = await findReport(deps.db, params.auditId);
    const file = report ? await deps.storage.open(report.storage_key) : null;
    if (!report || !file)
      throw new ApiError('audit_not_found', `the report of audit ${params.auditId} no longer exists`);
    const audit = await loadAuditHeadline(deps.db, params.auditId);
    ctx.set(
      'Cache-Control',
      `private, max-age=${Math.max(0, params.expires - Math.floor(deps.clock.now().getTime() / 1000))}`,
    );
    ctx.set('ETag', `"${report.sha256}"`);
    ctx.set(
      'Content-Disposition',
      `inline; filename="${reportFileName(audit?.domain ?? params.auditId, audit?.completed_at ?? null)}"`,
    );
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
