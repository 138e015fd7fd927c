import type { Change, ChangeFeed, ChangeKind } from '../db/change-feed';
import { CoherentCache } from '../db/coherent-cache';
import type { Db } from '../db/knex';
import { findShareByTokenHash, type OpenedShare } from './repository';

/**
 * The links visitors open, kept in this process so a page or badge served from what is kept rendered
 * needs no database round trip (docs/decisions.md, "Share links"). Only links to completed audits are
 * kept: their headline changes only by a test re-run or a prune, which publish an `audit` change.
 * Every other input of the open-check is named by a change too: a revoked link (`share`), the owner's
 * tier (`account`), the workspace's branding (`branding`). Expiry is checked against the clock on
 * every request by the caller. Unknown tokens are never kept, so guessing cannot crowd out real links.
 * Without a healthy change feed every request reads the database, as before.
 */
export class ShareOpenings {
  private readonly kept: CoherentCache<OpenedShare | undefined>;

  constructor(
    private readonly db: Db,
    feed: ChangeFeed | null,
  ) {
    this.kept = new CoherentCache({
      maxEntries: 10_000,
      // A backstop only: changes arrive through the feed.
      ttlMs: 10 * 60_000,
      enabled: () => feed?.healthy ?? false,
    });
    feed?.subscribe((change) => this.changed(change));
  }

  /** The link with this token digest, with its audit and owner, as findShareByTokenHash reads it. */
  find(tokenHash: Buffer): Promise<OpenedShare | undefined> {
    return this.kept.get(
      tokenHash.toString('hex'),
      () => findShareByTokenHash(this.db, tokenHash),
      (opened) => opened?.audit.status === 'completed',
    );
  }

  private changed(change: Change | 'reset'): void {
    if (change === 'reset') return this.kept.clear();
    const names = NAMED_BY[change.kind];
    if (names) this.kept.invalidateWhere((opened) => opened !== undefined && names(opened) === change.id);
  }
}

/** Which id of a kept link each kind of change names. */
const NAMED_BY: Partial<Record<ChangeKind, (opened: OpenedShare) => string>> = {
  share: (opened) => opened.share.id,
  audit: (opened) => opened.audit.id,
  account: (opened) => opened.ownerAccountId,
  branding: (opened) => opened.share.workspace_id,
};
