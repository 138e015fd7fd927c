import type { Db } from '../db/knex';
import type { BrowserPageResult, BrowserStageResult } from './stage-result';
import { storableJson } from '../text/storable';

/**
 * The browser stage's rows (migration 20261123210000_browser_stage): one per audit attempt, written
 * by the crawl (sample), the browser worker (result) and the analysis (the audit JSON waiting to be
 * completed with the result).
 */
const TABLE = 'audit_browser_stages';

type Key = { auditId: string; attempt: number };

async function upsert(db: Db, key: Key, values: Record<string, unknown>): Promise<void> {
  await db(TABLE)
    .insert({ audit_id: key.auditId, attempt: key.attempt, ...values, updated_at: db.fn.now() })
    .onConflict(['audit_id', 'attempt'])
    .merge({ ...values, updated_at: db.fn.now() });
}

async function read<T>(db: Db, key: Key, column: string): Promise<T | null> {
  const row = await db(TABLE).where({ audit_id: key.auditId, attempt: key.attempt }).first(column);
  return (row?.[column] as T | undefined) ?? null;
}

export function saveSample(db: Db, key: Key, urls: string[]): Promise<void> {
  return upsert(db, key, { sample_urls: storableJson(urls) });
}

/** The attempt's sample, or null while its crawl is still running. */
export function loadSample(db: Db, key: Key): Promise<string[] | null> {
  return read<string[]>(db, key, 'sample_urls');
}

export function saveStageResult(db: Db, key: Key, result: BrowserStageResult): Promise<void> {
  // Console text and axe's node snippets come from the page (docs/decisions.md, "Bytes from outside").
  return upsert(db, key, { stage_result: storableJson(result) });
}

export function loadStageResult(db: Db, key: Key): Promise<BrowserStageResult | null> {
  return read<BrowserStageResult>(db, key, 'stage_result');
}

/** The home page's render, made while the crawl runs (migration 20261127000200_browser_home_page). */
export function saveHomePage(db: Db, key: Key, page: BrowserPageResult): Promise<void> {
  return upsert(db, key, { home_page: storableJson(page) });
}

export function loadHomePage(db: Db, key: Key): Promise<BrowserPageResult | null> {
  return read<BrowserPageResult>(db, key, 'home_page');
}

/**
 * The analysed audit JSON, waiting for the stage's result; in the same transaction the audit's
 * progress enters the `rendering` phase (src/audits/progress.ts), for this attempt only.
 */
export function savePendingAudit(db: Db, key: Key, auditJson: string): Promise<void> {
  return db.transaction(async (trx) => {
    await upsert(trx, key, { pending_audit_json: auditJson });
    await trx('audits')
      .where({ id: key.auditId, status: 'running', attempts: key.attempt })
      .update({ progress_phase: 'rendering', phase_started_at: trx.fn.now() });
  });
}

export function loadPendingAudit(db: Db, key: Key): Promise<string | null> {
  return read<string>(db, key, 'pending_audit_json');
}

/** Once the audit is completed its JSON lives in the audit row: the copy here goes. */
export async function clearPendingAudit(db: Db, key: Key): Promise<void> {
  await db(TABLE).where({ audit_id: key.auditId, attempt: key.attempt }).update({ pending_audit_json: null });
}
