import { BURST_LIMIT, tierAtLeast } from '../accounts/tiers';
import { accountUsage, lockAccountPosition, type Usage } from '../accounts/usage';
import type { KeyIdentity } from '../accounts/repository';
import { ApiError } from '../api/api-error';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';
import { newLiveAuditId, testAuditId } from '../ids';
import { parseCidrList } from '../outbound/policy';
import { resolveAllowed } from '../outbound/resolve';
import { hostRefusal } from '../outbound/refusal';
import type { Tier } from '../schemas/audit';
import type { TriggerAuditBody } from '../schemas/api';
import { InvalidDomainError, normalizeDomain } from './domain';
import { estimateCompletion } from './estimate';
import { currentMsPerPage } from './crawl-speed';
import { claimIdempotencyKey, requestFingerprint, storeIdempotentResponse } from './idempotency';
import { insertAudit } from './repository';
import { checkWebhookUrl } from '../webhooks/url-policy';
import { requireTier } from '../accounts/tier-gate';
import { SchedulerUnavailableError, type AuditScheduler } from './scheduler';

export interface TriggerDeps {
  db: Db;
  clock: Clock;
  config: Config;
  scheduler: AuditScheduler;
}

export interface TriggerResult {
  response: { audit_id: string; status: 'queued'; estimated_completion: string };
  usage: Usage;
  /** The response of an earlier request with the same Idempotency-Key, returned again. */
  replayed: boolean;
}

/**
 * POST /audits. Test audits are idempotent per (workspace, domain) and never limited. Live audits
 * check tier, burst, first-free and quota, insert the row and start the workflow in ONE transaction
 * holding the account's row lock: concurrent triggers serialize per account, and an audit whose
 * workflow could not be started is rolled back, so it is neither stored nor charged.
 */
export async function triggerAudit(
  deps: TriggerDeps,
  caller: { identity: KeyIdentity; usage: Usage },
  body: TriggerAuditBody,
  idempotencyKey?: string,
): Promise<TriggerResult> {
  const { identity } = caller;
  const domain = parseDomain(body.domain);
  const now = deps.clock.now();
  const webhookUrl = body.webhook_url ? await checkOverride(body.webhook_url, caller.usage, deps.config) : null;
  if (identity.mode === 'test') {
    const tier = requestedTier(body.tier, caller.usage.tier);
    const response = await triggerTestAudit(deps, identity, { domain, tier, webhookUrl, now });
    // Test audits consume nothing: the caller's usage is unchanged.
    return { response, usage: caller.usage, replayed: false };
  }

  requestedTier(body.tier, caller.usage.tier); // fail fast, before any DNS or locking
  await checkResolvable(domain.host, deps.config);
  const msPerPage = await currentMsPerPage(deps.db);
  return deps.db.transaction(async (trx) => {
    const idempotency = idempotencyKey
      ? { workspaceId: identity.workspaceId, key: idempotencyKey, fingerprint: requestFingerprint(body), now }
      : null;
    if (idempotency) {
      const earlier = await claimIdempotencyKey(trx, idempotency);
      if (earlier) {
        return { response: earlier.body as TriggerResult['response'], usage: await accountUsage(trx, identity.accountId, now), replayed: true };
      }
    }
    const position = await lockAccountPosition(trx, {
      accountId: identity.accountId,
      now,
      domain: domain.origin,
      burstWindowStart: new Date(now.getTime() - BURST_LIMIT.windowSeconds * 1000),
    });
    enforceBurst(position.recentTriggers, now);
    const firstOfDomain = !position.domainSeen;
    // Decided under the lock: the tier may have changed since the request was authenticated.
    const { usage } = position;
    const tier = requestedTier(body.tier, usage.tier);
    if (!firstOfDomain && usage.remaining <= 0) {
      throw new ApiError(
        'audit_quota_exceeded',
        `the monthly quota of ${usage.limit} audits is used up; it resets at ${usage.period.end.toISOString()}`,
      );
    }
    const auditId = newLiveAuditId();
    const estimated = estimateCompletion('live', tier, now, msPerPage);
    await insertAudit(trx, {
      id: auditId,
      workspace_id: identity.workspaceId,
      account_id: identity.accountId,
      mode: 'live',
      domain: domain.origin,
      tier,
      status: 'queued',
      charged: !firstOfDomain,
      webhook_url: webhookUrl,
      estimated_completion: estimated,
      created_at: now,
    });
    if (!firstOfDomain) await publishChange(trx, { kind: 'account', id: identity.accountId });
    await startOrUnavailable(deps, { auditId, workspaceId: identity.workspaceId, mode: 'live', domain: domain.origin, tier });
    const response = accepted(auditId, estimated);
    if (idempotency) await storeIdempotentResponse(trx, { ...idempotency, response: { status: 202, body: response } });
    const after: Usage = firstOfDomain ? usage : { ...usage, used: usage.used + 1, remaining: Math.max(0, usage.remaining - 1) };
    return { response, usage: after, replayed: false };
  });
}

async function triggerTestAudit(
  deps: TriggerDeps,
  identity: KeyIdentity,
  input: { domain: { origin: string }; tier: Tier; webhookUrl: string | null; now: Date },
): Promise<TriggerResult['response']> {
  const auditId = testAuditId(identity.workspaceId, input.domain.origin);
  const estimated = estimateCompletion('test', input.tier, input.now, 0);
  // A repeated test trigger runs the same deterministic audit again: same id, same findings.
  // Row and workflow start share a transaction, so a failed start leaves nothing behind.
  await deps.db.transaction(async (trx) => {
    await trx('audits')
    .insert({
      id: auditId,
      workspace_id: identity.workspaceId,
      account_id: identity.accountId,
      mode: 'test',
      domain: input.domain.origin,
      tier: input.tier,
      status: 'queued',
      charged: false,
      webhook_url: input.webhookUrl,
      estimated_completion: estimated,
      created_at: input.now,
      updated_at: input.now,
    })
    .onConflict('id')
    .merge({
      tier: input.tier,
      status: 'queued',
      webhook_url: input.webhookUrl,
      estimated_completion: estimated,
      attempts: 0,
      error_code: null,
      error_message: null,
      failed_at: null,
      updated_at: input.now,
    });
    await publishChange(trx, { kind: 'audit', id: auditId });
    await startOrUnavailable(deps, { auditId, workspaceId: identity.workspaceId, mode: 'test', domain: input.domain.origin, tier: input.tier });
  });
  return accepted(auditId, estimated);
}

/** A per-audit webhook_url is a webhook feature (pro and up) and passes the outbound policy. */
async function checkOverride(url: string, usage: Usage, config: Config): Promise<string> {
  requireTier(usage, 'webhooks', 'webhooks (webhook_url)');
  return checkWebhookUrl('webhook_url', url, parseCidrList(config.outboundAllowCidrs));
}

function parseDomain(raw: string): { origin: string; host: string } {
  try {
    return normalizeDomain(raw);
  } catch (err) {
    if (err instanceof InvalidDomainError) throw new ApiError('invalid_domain', err.message);
    throw err;
  }
}

function requestedTier(requested: Tier | undefined, accountTier: Tier): Tier {
  if (!requested) return accountTier;
  if (!tierAtLeast(accountTier, requested)) {
    throw new ApiError('tier_required', `an audit at tier ${requested} requires the ${requested} tier or higher; this account is on ${accountTier}`);
  }
  return requested;
}

/** Live audits of hosts that do not resolve to a public address are refused before anything is stored. */
async function checkResolvable(host: string, config: Config): Promise<void> {
  try {
    await resolveAllowed(host, parseCidrList(config.outboundAllowCidrs));
  } catch (err) {
    throw new ApiError('invalid_domain', `domain cannot be audited: ${hostRefusal(err)}`);
  }
}

function enforceBurst(recentTriggers: Date[], now: Date): void {
  if (recentTriggers.length < BURST_LIMIT.limit) return;
  // The window frees a slot when the oldest trigger that keeps it full is 60 s old.
  const freesAt = recentTriggers[recentTriggers.length - BURST_LIMIT.limit].getTime() + BURST_LIMIT.windowSeconds * 1000;
  const retryAfter = Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000));
  throw new ApiError(
    'burst_limit_exceeded',
    `more than ${BURST_LIMIT.limit} audits triggered within ${BURST_LIMIT.windowSeconds} seconds; retry in ${retryAfter} s`,
    { 'Retry-After': String(retryAfter) },
  );
}

async function startOrUnavailable(
  deps: TriggerDeps,
  input: { auditId: string; workspaceId: string; mode: 'test' | 'live'; domain: string; tier: Tier },
): Promise<void> {
  try {
    await deps.scheduler.start({
      ...input,
      retryDelaysMs: deps.config.auditRetryDelaysMs,
      heartbeatTimeoutMs: deps.config.auditHeartbeatTimeoutMs,
      reportTaskQueue: deps.config.reportTaskQueue,
      delivery: {
        retryDelaysMs: deps.config.deliveryRetryDelaysMs,
        redeliveryWindowMs: deps.config.redeliveryWindowMs,
        timeoutMs: deps.config.deliveryTimeoutMs,
      },
    });
  } catch (err) {
    if (err instanceof SchedulerUnavailableError) {
      throw new ApiError('audit_provider_unavailable', 'the audit engine is temporarily unavailable; nothing was stored or charged, retry later');
    }
    throw err;
  }
}

function accepted(auditId: string, estimated: Date): TriggerResult['response'] {
  return { audit_id: auditId, status: 'queued', estimated_completion: estimated.toISOString() };
}
