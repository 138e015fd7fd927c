import { accountUsage, type Usage } from '../accounts/usage';
import type { KeyAuthenticator } from '../accounts/authenticator';
import { loadAudit, type AuditRow } from '../audits/repository';
import type { ChangeFeed } from '../db/change-feed';
import { CoherentCache } from '../db/coherent-cache';
import type { Db } from '../db/knex';
import { hasIdShape } from '../ids';
import type { Scope } from './context';

/**
 * What the hot read paths need, cached and kept coherent across API instances by the change feed:
 * the account's quota position (for the rate-limit headers) and completed audits (immutable until
 * a test re-trigger or a prune, which publish a change). Without a healthy feed it reads through.
 */
export class ReadModel {
  private readonly usageCache: CoherentCache<Usage>;
  private readonly auditCache: CoherentCache<AuditRow | undefined>;

  constructor(
    private readonly db: Db,
    feed: ChangeFeed | null,
    authenticator: KeyAuthenticator,
  ) {
    const enabled = () => feed?.healthy ?? false;
    this.usageCache = new CoherentCache({ maxEntries: 10_000, ttlMs: 60_000, enabled });
    this.auditCache = new CoherentCache({ maxEntries: 1_000, ttlMs: 10 * 60_000, enabled });
    feed?.subscribe((change) => {
      if (change === 'reset') {
        this.usageCache.clear();
        this.auditCache.clear();
        authenticator.forgetAll();
      } else if (change.kind === 'account') this.usageCache.invalidate(change.id);
      else if (change.kind === 'audit') this.auditCache.invalidate(change.id);
      else if (change.kind === 'key') authenticator.forgetAll();
    });
  }

  async usage(accountId: string, now: Date): Promise<Usage> {
    const usage = await this.usageCache.get(accountId, () => accountUsage(this.db, accountId, now));
    if (now >= usage.period.start && now < usage.period.end) return usage;
    // Cached in another quota period (a month boundary passed): read the new one.
    this.usageCache.invalidate(accountId);
    return accountUsage(this.db, accountId, now);
  }

  /** Usage this instance just changed itself; the feed will tell the other instances. */
  usageChanged(accountId: string): void {
    this.usageCache.invalidate(accountId);
  }

  async audit(auditId: string): Promise<AuditRow | undefined> {
    return this.auditCache.get(
      auditId,
      () => loadAudit(this.db, auditId),
      (row) => row?.status === 'completed',
    );
  }

  /** The audit if the scope may see it: only in its workspace, and test keys only test audits (live likewise). */
  async auditIn(scope: Scope, auditId: string): Promise<AuditRow | undefined> {
    // An id of another shape names no audit: answered without a query.
    if (!hasIdShape('audit', auditId)) return undefined;
    const row = await this.audit(auditId);
    return row && row.workspace_id === scope.workspaceId && row.mode === scope.mode ? row : undefined;
  }

  auditChanged(auditId: string): void {
    this.auditCache.invalidate(auditId);
  }
}
