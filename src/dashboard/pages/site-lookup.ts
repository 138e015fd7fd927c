import { accountUsage } from '../../accounts/usage';
import { ApiError } from '../../errors';
import { hasIdShape, newRequestId } from '../../ids';
import type { SiteWithLastAudit } from '../../sites/repository';
import { getSite, type SiteCaller, type SiteServiceDeps } from '../../sites/service';
import type { DashboardDeps } from '../deps';
import { renderStatus } from '../render';
import { signedIn, type DashboardContext } from '../state';

export type Problem = { message: string; requestId: string };

/** The signed-in workspace and mode as the site service's caller, with the account's usage (its tier). */
export async function siteCaller(c: DashboardContext, deps: DashboardDeps): Promise<SiteCaller> {
  const me = signedIn(c);
  const usage = await accountUsage(deps.db, me.workspace.accountId, deps.clock.now());
  return { workspaceId: me.workspace.id, accountId: me.workspace.accountId, mode: c.state.mode, usage };
}

export function siteService(deps: DashboardDeps): SiteServiceDeps {
  return { db: deps.db, clock: deps.clock, config: deps.config, schedules: deps.siteSchedules, log: deps.log };
}

/** The site `:siteId` names, through the service (tier gate, this workspace and mode), or undefined. */
export async function siteInView(
  c: DashboardContext,
  deps: DashboardDeps,
  caller?: SiteCaller,
): Promise<SiteWithLastAudit | undefined> {
  const siteId = c.params.siteId ?? '';
  if (!hasIdShape('site', siteId)) return undefined;
  try {
    return await getSite(deps.db, caller ?? (await siteCaller(c, deps)), siteId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'site_not_found') return undefined;
    throw err;
  }
}

/** A refusal shown on the page, logged with the request id support asks for. */
export function siteRefusal(deps: DashboardDeps, message: string): Problem {
  const requestId = newRequestId();
  deps.log?.(`dashboard site request refused (${requestId}): ${message}`);
  return { message, requestId };
}

export function siteNotFound(c: DashboardContext): void {
  renderStatus(c, 404, 'Not found', 'There is no such site or finding in this workspace and mode.');
}
