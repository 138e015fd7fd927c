import type { Db } from '../db/knex';
import { loadAudit } from '../audits/repository';
import { loadSite } from '../sites/repository';
import { regressionOf } from '../sites/regression';
import { findWebhook } from '../webhooks/repository';
import type { PlannedNotification } from '../../workflows/contracts';

/** What a notification tells, read once when it is logged (every attempt then sends the same body). */
export type NoticeFacts =
  | {
      event: 'audit.failed';
      auditId: string;
      domain: string;
      error: { code: string; message: string };
      attempts: number;
      failedAt: Date;
    }
  | {
      event: 'site.regressed';
      siteId: string;
      auditId: string;
      domain: string;
      score: number;
      previousScore: number;
      newFindings: Array<{ severity: string; title: string }>;
    }
  | { event: 'webhook.failing'; webhookId: string; url: string; failingSince: Date; disableAt: Date | null }
  | { event: 'webhook.disabled'; webhookId: string; url: string; disabledAt: Date; reason: string };

/** The facts of a planned notification; null when what it is about is gone (a pruned audit, a removed webhook). */
export async function noticeFacts(db: Db, planned: PlannedNotification): Promise<NoticeFacts | null> {
  const { about } = planned;
  switch (planned.event) {
    case 'audit.failed': {
      const audit = about.auditId ? await loadAudit(db, about.auditId) : undefined;
      if (!audit) return null;
      return {
        event: 'audit.failed',
        auditId: audit.id,
        domain: audit.domain,
        error: { code: audit.error_code ?? 'internal_error', message: audit.error_message ?? 'the audit failed' },
        attempts: audit.attempts,
        failedAt: audit.failed_at ? new Date(audit.failed_at) : new Date(planned.eventAt),
      };
    }
    case 'site.regressed':
      return regressedFacts(db, planned);
    case 'webhook.failing':
    case 'webhook.disabled':
      return webhookFacts(db, planned);
  }
}

async function regressedFacts(db: Db, planned: PlannedNotification): Promise<NoticeFacts | null> {
  const { auditId, siteId } = planned.about;
  const audit = auditId ? await loadAudit(db, auditId) : undefined;
  const site = siteId ? await loadSite(db, siteId) : undefined;
  const regression = audit?.result_json ? regressionOf(audit.result_json) : null;
  if (!audit || !site || !regression) return null;
  return {
    event: 'site.regressed',
    siteId: site.id,
    auditId: audit.id,
    domain: site.domain,
    score: regression.score,
    previousScore: regression.previousScore,
    newFindings: regression.newFindings.map((f) => ({ severity: f.severity, title: f.title })),
  };
}

async function webhookFacts(db: Db, planned: PlannedNotification): Promise<NoticeFacts | null> {
  const { webhookId } = planned.about;
  const scope = { workspaceId: planned.workspaceId, mode: planned.mode };
  const webhook = webhookId ? await findWebhook(db, scope, webhookId) : undefined;
  if (!webhook) return null;
  if (planned.event === 'webhook.failing')
    return {
      event: 'webhook.failing',
      webhookId: webhook.id,
      url: webhook.url,
      failingSince: new Date(planned.about.failingSince ?? planned.eventAt),
      disableAt: planned.about.disableAt ? new Date(planned.about.disableAt) : null,
    };
  return {
    event: 'webhook.disabled',
    webhookId: webhook.id,
    url: webhook.url,
    disabledAt: new Date(planned.eventAt),
    reason: webhook.disabled_reason ?? 'consecutive_failures',
  };
}
