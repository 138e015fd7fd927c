import { requireFeature } from '../accounts/tier-gate';
import type { Db } from '../db/knex';
import { listHistory, listRuns, listSites } from './repository';
import { getSite, type SiteCaller } from './service';

type Keyset = { createdAt: string; id: string };

/**
 * The monitored sites' reads behind the same tier gate as their changes (src/sites/service.ts):
 * what the API's routes list, so no surface reads the sites' tables past the gate.
 */
export async function listWorkspaceSites(db: Db, caller: SiteCaller, page: { limit: number; after?: Keyset }) {
  requireFeature(caller.usage, 'sites');
  return listSites(db, caller, page);
}

/** A site's firings, newest first: started, or skipped and why. */
export async function siteRuns(db: Db, caller: SiteCaller, siteId: string, page: { limit: number; after?: Keyset }) {
  const site = await getSite(db, caller, siteId);
  return listRuns(db, site.id, page);
}

/** A site's completed audits with their scores, newest first. */
export async function siteHistory(db: Db, caller: SiteCaller, siteId: string, page: { limit: number; after?: Keyset }) {
  const site = await getSite(db, caller, siteId);
  return listHistory(db, site, page);
}
