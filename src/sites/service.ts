import type { Knex } from 'knex';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { ApiError } from '../errors';
import { newSiteId } from '../ids';
import type { Usage } from '../accounts/usage';
import { featureIncluded, requireAuditOption, requireFeature, type TierHolder } from '../accounts/tier-gate';
import { tierAtLeast } from '../accounts/tiers';
import { checkAuditable, parseDomainInput } from '../audits/domain-input';
import type { Mode, Tier } from '../schemas/audit';
import type { RenderMode } from '../schemas/api-audits';
import { SITE_LIMITS, siteTiming, WEEKDAYS, type SiteSchedule, type SiteTiming, type TimedSite } from './cadence';
import { recordOwedSchedule, type OwedSchedule } from './owed-schedules';
import {
  accountSites,
  deleteSite,
  findSite,
  insertSite,
  siteOfDomain,
  updateSite,
  withLastAudits,
  type SiteRow,
  type SiteWithLastAudit,
} from './repository';
import { settleOwedSchedule, type SiteSchedules } from './schedule-sync';
import { canonicalTimeZone } from './zoned-time';

export interface SiteServiceDeps {
  db: Db;
  clock: Clock;
  config: Config;
  schedules: SiteSchedules;
  log?: (message: string, err?: unknown) => void;
}

/** Who asks: the workspace and mode of the key (or dashboard session) and the account's usage. */
export interface SiteCaller {
  workspaceId: string;
  accountId: string;
  mode: Mode;
  usage: Usage;
}

/** Whether the account's tier includes monitored sites: pages offer their controls only then. */
export function sitesIncluded(account: TierHolder): boolean {
  return featureIncluded(account, 'sites');
}

/**
 * POST /sites. The account's row lock serializes creations, so two concurrent requests cannot
 * both take the last slot. The row and its owed schedule commit together; the schedule is created
 * right after (or by the reconciler, if this process stops in between).
 */
export async function createSite(
  deps: SiteServiceDeps,
  caller: SiteCaller,
  body: { domain: string; schedule: SiteSchedule; tier?: Tier; render?: RenderMode } & SiteTimingInput,
): Promise<SiteWithLastAudit> {
  requireFeature(caller.usage, 'sites');
  requireRender(caller.usage, body.render); // fail fast, before any DNS or locking
  const domain = parseDomainInput(body.domain);
  const now = deps.clock.now();
  const timing = resolveSiteTiming(body.schedule, body, now);
  if (body.tier && !tierAtLeast(caller.usage.tier, body.tier))
    throw new ApiError(
      'tier_required',
      `runs at tier ${body.tier} require the ${body.tier} tier or higher; this account is on ${caller.usage.tier}`,
    );
  if (caller.mode === 'live') await checkAuditable(domain.host, deps.config);
  const { site, owed } = await deps.db.transaction(async (trx) => {
    const tier = await lockAccountTier(trx, caller.accountId);
    requireRender({ tier }, body.render);
    const limit = SITE_LIMITS[tier];
    const existing = await accountSites(trx, caller.accountId, caller.mode);
    if (limit !== null && existing.length >= limit) throw limitReached(tier, limit, caller.mode, 'delete a site');
    const duplicate = await siteOfDomain(trx, { ...caller, domain: domain.origin });
    if (duplicate) throw new ApiError('site_already_exists', `site ${duplicate.id} already monitors ${domain.origin}`);
    const row: Omit<SiteRow, 'revision'> = {
      id: newSiteId(),
      workspace_id: caller.workspaceId,
      account_id: caller.accountId,
      mode: caller.mode,
      domain: domain.origin,
      schedule: body.schedule,
      ...timing,
      tier: body.tier ?? null,
      render: body.render ?? 'sample',
      paused: false,
      paused_reason: null,
      created_at: now,
      updated_at: now,
    };
    await insertSite(trx, row);
    return { site: { ...row, revision: 1 }, owed: await recordOwedSchedule(trx, row.id) };
  });
  await settleOwedSchedule(scheduleDeps(deps), owed);
  return { ...site, last_audit_id: (await withLastAudits(deps.db, [site]))[0].last_audit_id };
}

export async function getSite(db: Db, caller: SiteCaller, siteId: string): Promise<SiteWithLastAudit> {
  requireFeature(caller.usage, 'sites');
  const site = await findSite(db, caller, siteId);
  if (!site) throw siteNotFound(siteId);
  return (await withLastAudits(db, [site]))[0];
}

/**
 * PATCH /sites/{id}: schedule, its timing (resolveSiteTiming), render and paused. Resuming a paused site is refused while
 * the account's running sites already fill its limit (after a downgrade); pausing any site makes it a user's pause.
 */
export async function patchSite(
  deps: SiteServiceDeps,
  caller: SiteCaller,
  siteId: string,
  body: { schedule?: SiteSchedule; paused?: boolean; render?: RenderMode } & SiteTimingInput,
): Promise<SiteWithLastAudit> {
  requireFeature(caller.usage, 'sites');
  requireRender(caller.usage, body.render);
  const now = deps.clock.now();
  const { site, owed } = await deps.db.transaction(async (trx) => {
    const tier = await lockAccountTier(trx, caller.accountId);
    requireRender({ tier }, body.render);
    const current = await findSite(trx, caller, siteId);
    if (!current) throw siteNotFound(siteId);
    if (body.paused === false && current.paused) {
      const limit = SITE_LIMITS[tier];
      const running = (await accountSites(trx, caller.accountId, caller.mode)).filter((s) => !s.paused).length;
      if (limit !== null && running >= limit) throw limitReached(tier, limit, caller.mode, 'pause another site');
    }
    const paused = body.paused ?? current.paused;
    const schedule = body.schedule ?? current.schedule;
    const updated = await updateSite(trx, siteId, {
      schedule,
      ...resolveSiteTiming(schedule, body, current.created_at, current),
      render: body.render ?? current.render,
      paused,
      paused_reason: body.paused === undefined ? current.paused_reason : null,
      updated_at: now,
    });
    return { site: updated, owed: await recordOwedSchedule(trx, siteId) };
  });
  await settleOwedSchedule(scheduleDeps(deps), owed);
  return (await withLastAudits(deps.db, [site]))[0];
}

/** The timing fields of POST and PATCH /sites and of the dashboard's site form. */
export interface SiteTimingInput {
  time_zone?: string;
  at?: string;
  weekday?: string;
  day_of_month?: number;
}

const TIME_OF_DAY = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * The timing a site gets from a create (no `current`) or a change of `current` to `schedule`:
 * the fields given, once checked; the others as they were; and where nothing was, the default
 * (the minute, weekday or day of the month of the site's creation in its zone, as siteTiming has
 * it). A weekday belongs to weekly schedules only, a day of the month to monthly ones; a schedule
 * changed away from them drops it. Throws invalid_request naming the field.
 */
export function resolveSiteTiming(
  schedule: SiteSchedule,
  input: SiteTimingInput,
  createdAt: Date,
  current?: TimedSite,
): SiteTiming {
  const zone = input.time_zone === undefined ? undefined : canonicalTimeZone(String(input.time_zone));
  if (input.time_zone !== undefined && !zone)
    throw invalid('field time_zone must be an IANA time zone name, such as Europe/Berlin, America/New_York or UTC');
  if (input.at !== undefined && !TIME_OF_DAY.test(String(input.at)))
    throw invalid('field at must be a time of day as HH:MM on a 24-hour clock, such as 09:30');
  if (input.weekday !== undefined) {
    if (!(WEEKDAYS as readonly string[]).includes(input.weekday))
      throw invalid(`field weekday must be one of: ${WEEKDAYS.join(', ')}`);
    if (schedule !== 'weekly') throw onlyFor('weekday', 'weekly', schedule);
  }
  if (input.day_of_month !== undefined) {
    const day = input.day_of_month;
    if (!(Number.isInteger(day) && day >= 1 && day <= 28))
      throw invalid('field day_of_month must be a whole number from 1 to 28 (days every month has)');
    if (schedule !== 'monthly') throw onlyFor('day_of_month', 'monthly', schedule);
  }
  const kept = current ? siteTiming(current) : undefined;
  const timeZone = zone ?? kept?.time_zone ?? 'UTC';
  const defaults = siteTiming({ schedule, created_at: createdAt, time_zone: timeZone });
  return {
    time_zone: timeZone,
    at: input.at ?? kept?.at ?? defaults.at,
    weekday:
      schedule === 'weekly' ? ((input.weekday as SiteTiming['weekday']) ?? kept?.weekday ?? defaults.weekday) : null,
    day_of_month: schedule === 'monthly' ? (input.day_of_month ?? kept?.day_of_month ?? defaults.day_of_month) : null,
  };
}

function invalid(message: string): ApiError {
  return new ApiError('invalid_request', message);
}

function onlyFor(field: string, schedule: SiteSchedule, actual: SiteSchedule): ApiError {
  return invalid(`field ${field} applies to ${schedule} schedules only, and this schedule is ${actual}`);
}

/** DELETE /sites/{id}: the row (with its runs and triage) and then its schedule. */
export async function removeSite(deps: SiteServiceDeps, caller: SiteCaller, siteId: string): Promise<void> {
  requireFeature(caller.usage, 'sites');
  const owed: OwedSchedule = await deps.db.transaction(async (trx) => {
    const current = await findSite(trx, caller, siteId);
    if (!current) throw siteNotFound(siteId);
    await deleteSite(trx, siteId);
    return recordOwedSchedule(trx, siteId);
  });
  await settleOwedSchedule(scheduleDeps(deps), owed);
}

export function scheduleDeps(deps: SiteServiceDeps) {
  return { db: deps.db, schedules: deps.schedules, overrideMs: deps.config.siteScheduleOverrideMs, log: deps.log };
}

/**
 * A site's `render: "all"` passes the gate of POST /audits' render option (src/accounts/tier-gate.ts),
 * so a site is only given what its account's tier allows; each run is gated again by its trigger (a
 * downgraded account's runs are skipped as tier_required).
 */
function requireRender(account: TierHolder, render: RenderMode | undefined): void {
  if (render === 'all') requireAuditOption(account, 'render_all');
}

/** Locks the account row (as triggers do) and reads its tier under the lock. */
async function lockAccountTier(trx: Knex.Transaction, accountId: string): Promise<Tier> {
  const account = await trx('accounts').where({ id: accountId }).forUpdate().first('tier');
  if (!account) throw new Error(`account ${accountId} does not exist`);
  return account.tier as Tier;
}

export function siteNotFound(siteId: string): ApiError {
  return new ApiError('site_not_found', `no site ${siteId} in this workspace`);
}

function limitReached(tier: Tier, limit: number, mode: Mode, remedy: string): ApiError {
  return new ApiError(
    'site_limit_reached',
    `the ${tier} tier monitors at most ${limit} ${mode} sites and this account has reached that; ${remedy}, or upgrade`,
  );
}
