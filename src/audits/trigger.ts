import type { Knex } from 'knex';
import { BURST_LIMIT, tierAtLeast } from '../accounts/tiers';
import { accountUsage, lockAccountPosition, type Usage } from '../accounts/usage';
import type { KeyIdentity } from '../accounts/repository';
import { ApiError } from '../errors';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { publishChange } from '../db/change-feed';
import { newLiveAuditId, testAuditId } from '../ids';
import type { Tier } from '../schemas/audit';
import type { TriggerAuditBody } from '../schemas/api';
import type { RenderMode } from '../schemas/api-audits';
import { checkAuditable, parseDomainInput } from './domain-input';
import { currentBacklog, estimateCompletion } from './estimate';
import { currentSpeeds } from './crawl-speed';
import { claimIdempotencyKey, requestFingerprint, storeIdempotentResponse } from './idempotency';
import { insertAudit } from './repository';
import { recordPendingStart, type PendingStart } from './pending-starts';
import { startAuditWorkflow, type StartableAudit } from './workflow-start';
import { registrableDomain } from '../registrable-domain';
import { TriggerSlots } from './trigger-slots';
import { checkWebhookUrl } from '../outbound/url-policy';
import { requireAuditOption, requireTier } from '../accounts/tier-gate';
import type { AuditScheduler } from './scheduler';

// Of the pool's 10 connections, at most 4 wait on trigger locks: the rest stay free for reads.
const triggerSlots = new TriggerSlots(4);

export interface TriggerDeps {
  db: Db;
  clock: Clock;
  config: Config;
  scheduler: AuditScheduler;
  log?: (message: string, err?: unknown) => void;
}

export interface TriggerResult {
  response: { audit_id: string; status: 'queued'; estimated_completion: string };
  usage: Usage;
  /** The response of an earlier request with the same Idempotency-Key, returned again. */
  replayed: boolean;
}

/**
 * POST /audits. Test audits are idempotent per (workspace, domain) and never limited. Live audits
 * check tier, burst, first-free (per site, src/registrable-domain.ts) and quota and insert the row
 * and its owed workflow start in ONE short transaction holding the account's row lock, so
 * concurrent triggers serialize per account. The workflow is started only after the commit: nothing
 * waits on Temporal while holding a connection or a lock. An accepted audit always runs (a start
 * that fails now is made by the reconciler); while Temporal is known to be down, triggers are
 * refused at once with 503 and store nothing.
 */
export async function triggerAudit(
  deps: TriggerDeps,
  caller: { identity: KeyIdentity; usage: Usage },
  body: TriggerAuditBody,
  idempotencyKey?: string,
): Promise<TriggerResult> {
  const { identity } = caller;
  const domain = parseDomainInput(body.domain);
  const now = deps.clock.now();
  const webhookUrl = body.webhook_url ? await checkOverride(body.webhook_url, caller.usage, deps.config) : null;
  const render = requestedRender(body.render, caller.usage);
  if (identity.mode === 'test') {
    const tier = requestedTier(body.tier, caller.usage.tier);
    const response = await triggerTestAudit(deps, identity, { domain, tier, render, webhookUrl, now });
    // Test audits consume nothing: the caller's usage is unchanged.
    return { response, usage: caller.usage, replayed: false };
  }

  requestedTier(body.tier, caller.usage.tier); // fail fast, before any DNS or locking
  await checkAuditable(domain.host, deps.config);
  const speeds = await currentSpeeds(deps.db);
  const backlog = await currentBacklog(deps.db, 'live');
  const siteKey = registrableDomain(domain.host);
  const outcome = await triggerSlots.run(() =>
    deps.db.transaction(async (trx): Promise<{ result: TriggerResult; owed?: OwedStart }> => {
      const idempotency = idempotencyKey
        ? { workspaceId: identity.workspaceId, key: idempotencyKey, fingerprint: requestFingerprint(body), now }
        : null;
      if (idempotency) {
        const earlier = await claimIdempotencyKey(trx, idempotency);
        if (earlier) {
          const usage = await accountUsage(trx, identity.accountId, now);
          return { result: { response: earlier.body as TriggerResult['response'], usage, replayed: true } };
        }
      }
      refuseWhileUnavailable(deps.scheduler);
      const { usage, tier, firstOfSite } = await admitUnderAccountLock(trx, {
        accountId: identity.accountId,
        siteKey,
        requested: body.tier,
        render,
        now,
      });
      const auditId = newLiveAuditId();
      const estimated = estimateCompletion('live', tier, now, speeds, backlog, deps.config.pageBudgets);
      const audit: StartableAudit = {
        id: auditId,
        workspace_id: identity.workspaceId,
        mode: 'live',
        domain: domain.origin,
        tier,
        render,
        run_generation: 0,
      };
      await insertAudit(trx, {
        ...audit,
        account_id: identity.accountId,
        site_key: siteKey,
        status: 'queued',
        charged: !firstOfSite,
        webhook_url: webhookUrl,
        estimated_completion: estimated,
        created_at: now,
      });
      const pending = await recordPendingStart(trx, auditId);
      if (!firstOfSite) await publishChange(trx, { kind: 'account', id: identity.accountId });
      const response = accepted(auditId, estimated);
      if (idempotency)
        await storeIdempotentResponse(trx, { ...idempotency, response: { status: 202, body: response } });
      const after: Usage = firstOfSite
        ? usage
        : { ...usage, used: usage.used + 1, remaining: Math.max(0, usage.remaining - 1) };
      return { result: { response, usage: after, replayed: false }, owed: { pending, audit } };
    }),
  );
  if (outcome.owed) await startAfterCommit(deps, outcome.owed);
  return outcome.result;
}

/**
 * Takes the account's row lock and decides under it: burst limit, tier, then quota (a site's first
 * audit is free). The tier is read here: it may have changed since the request was authenticated.
 */
async function admitUnderAccountLock(
  trx: Knex.Transaction,
  request: { accountId: string; siteKey: string; requested: Tier | undefined; render: RenderMode; now: Date },
): Promise<{ usage: Usage; tier: Tier; firstOfSite: boolean }> {
  const { now } = request;
  const position = await lockAccountPosition(trx, {
    accountId: request.accountId,
    now,
    siteKey: request.siteKey,
    burstWindowStart: new Date(now.getTime() - BURST_LIMIT.windowSeconds * 1000),
  });
  enforceBurst(position.recentTriggers, now);
  const firstOfSite = !position.siteSeen;
  const { usage } = position;
  const tier = requestedTier(request.requested, usage.tier);
  requestedRender(request.render, usage);
  if (!firstOfSite && usage.remaining <= 0) {
    throw new ApiError(
      'audit_quota_exceeded',
      `the monthly quota of ${usage.limit} audits is used up; it resets at ${usage.period.end.toISOString()}`,
    );
  }
  return { usage, tier, firstOfSite };
}

interface OwedStart {
  pending: PendingStart;
  audit: StartableAudit;
}

async function triggerTestAudit(
  deps: TriggerDeps,
  identity: KeyIdentity,
  input: {
    domain: { origin: string; host: string };
    tier: Tier;
    render: RenderMode;
    webhookUrl: string | null;
    now: Date;
  },
): Promise<TriggerResult['response']> {
  const auditId = testAuditId(identity.workspaceId, input.domain.origin);
  const estimated = estimateCompletion(
    'test',
    input.tier,
    input.now,
    { msPerPage: 0, analysisMsPerPage: 0 }, // a synthetic run: no crawl, no analysis to measure
    await currentBacklog(deps.db, 'test'),
  );
  // A repeated test trigger runs the same deterministic audit again: same id, same findings.
  refuseWhileUnavailable(deps.scheduler);
  const { pending, generation } = await triggerSlots.run(() =>
    deps.db.transaction(async (trx) => {
      const [row] = await trx('audits')
        .insert({
          id: auditId,
          workspace_id: identity.workspaceId,
          account_id: identity.accountId,
          mode: 'test',
          domain: input.domain.origin,
          site_key: registrableDomain(input.domain.host),
          tier: input.tier,
          render: input.render,
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
          render: input.render,
          status: 'queued',
          webhook_url: input.webhookUrl,
          estimated_completion: estimated,
          attempts: 0,
          error_code: null,
          error_message: null,
          failed_at: null,
          updated_at: input.now,
          // The run started now replaces the one before: that one's writes are dropped from here on.
          run_generation: trx.raw('audits.run_generation + 1'),
        })
        .returning<Array<{ run_generation: number }>>('run_generation');
      await publishChange(trx, { kind: 'audit', id: auditId });
      return { pending: await recordPendingStart(trx, auditId), generation: row.run_generation };
    }),
  );
  const audit: StartableAudit = {
    id: auditId,
    workspace_id: identity.workspaceId,
    mode: 'test',
    domain: input.domain.origin,
    tier: input.tier,
    render: input.render,
    run_generation: generation,
  };
  await startAfterCommit(deps, { pending, audit });
  return accepted(auditId, estimated);
}

/** A per-audit webhook_url is a webhook feature (pro and up) and passes the outbound policy. */
async function checkOverride(url: string, usage: Usage, config: Config): Promise<string> {
  requireTier(usage, 'webhooks', 'webhooks (webhook_url)');
  return checkWebhookUrl('webhook_url', url, config.outboundAllow);
}

function requestedTier(requested: Tier | undefined, accountTier: Tier): Tier {
  if (!requested) return accountTier;
  if (!tierAtLeast(accountTier, requested)) {
    throw new ApiError(
      'tier_required',
      `an audit at tier ${requested} requires the ${requested} tier or higher; this account is on ${accountTier}`,
    );
  }
  return requested;
}

/** `render: "all"` is for team and up (the account's tier, read again under its lock); the default renders the sample. */
function requestedRender(requested: RenderMode | undefined, usage: Usage): RenderMode {
  if (requested !== 'all') return 'sample';
  requireAuditOption(usage, 'render_all');
  return 'all';
}

function enforceBurst(recentTriggers: Date[], now: Date): void {
  if (recentTriggers.length < BURST_LIMIT.limit) return;
  // The window frees a slot when the oldest trigger that keeps it full is 60 s old.
  const freesAt =
    recentTriggers[recentTriggers.length - BURST_LIMIT.limit].getTime() + BURST_LIMIT.windowSeconds * 1000;
  const retryAfter = Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000));
  throw new ApiError(
    'burst_limit_exceeded',
    `more than ${BURST_LIMIT.limit} audits triggered within ${BURST_LIMIT.windowSeconds} seconds; retry in ${retryAfter} s`,
    { 'Retry-After': String(retryAfter) },
  );
}

/** While Temporal is known to be down, answer at once: nothing stored, nothing charged. */
function refuseWhileUnavailable(scheduler: AuditScheduler): void {
  if (!scheduler.available()) {
    throw new ApiError(
      'audit_provider_unavailable',
      'the audit engine is temporarily unavailable; nothing was stored or charged, retry later',
    );
  }
}

/**
 * The audit is committed and accepted whatever happens here: a start the engine cannot take now
 * stays owed and the reconciler makes it (or refunds it), so a failure is logged, never answered.
 */
async function startAfterCommit(deps: TriggerDeps, owed: OwedStart): Promise<void> {
  try {
    await startAuditWorkflow(deps, owed.pending, owed.audit);
  } catch (err) {
    deps.log?.(`workflow start of ${owed.audit.id} left to the reconciler`, err);
  }
}

function accepted(auditId: string, estimated: Date): TriggerResult['response'] {
  return { audit_id: auditId, status: 'queued', estimated_completion: estimated.toISOString() };
}
