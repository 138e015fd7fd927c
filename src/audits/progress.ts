import type { Clock } from '../clock';
import type { Db } from '../db/knex';

/** Where a running live audit stands (the `progress` of its status envelope). */
export interface AuditProgress {
  phase: 'crawling' | 'checking' | 'analyzing' | 'rendering';
  pagesCrawled: number;
  pagesDiscovered: number;
}

export const AUDIT_PHASES: readonly AuditProgress['phase'][] = ['crawling', 'checking', 'analyzing', 'rendering'];
// What a run heartbeats itself; `rendering` is set by the browser stage's store (savePendingAudit).
const REPORTED_PHASES: readonly unknown[] = ['crawling', 'checking', 'analyzing'];

/**
 * The audits row's progress columns (migration 20261127100100_audit_progress_phase), written with
 * `pages_crawled` by the recorder below: all of them belong to the attempt that wrote `pages_crawled`
 * (markRunning clears it when an attempt starts, so older values are never shown).
 */
export interface ProgressColumns {
  progress_phase: AuditProgress['phase'] | null;
  pages_discovered: number | null;
  /** When the attempt's run started: the measured crawl rate counts from here. */
  attempt_started_at: Date | null;
  /** When the current phase began: fixed-length phases are estimated from here. */
  phase_started_at: Date | null;
}

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * A heartbeat's progress, `{phase, pagesCrawled, pagesDiscovered}`, or undefined for reports that
 * carry none (`starting`, `storing`, anything malformed). Discovered is never below crawled.
 */
export function progressOf(p: unknown): AuditProgress | undefined {
  if (typeof p !== 'object' || p === null) return undefined;
  const r = p as Record<string, unknown>;
  if (REPORTED_PHASES.includes(r.phase) && isCount(r.pagesCrawled) && isCount(r.pagesDiscovered)) {
    const phase = r.phase as AuditProgress['phase'];
    return { phase, pagesCrawled: r.pagesCrawled, pagesDiscovered: Math.max(r.pagesDiscovered, r.pagesCrawled) };
  }
  return undefined;
}

/**
 * Projects a running attempt's progress to its audit row, at most once per `minIntervalMs`, except
 * that a new phase is written at once (after a write in flight). Within the attempt both counts never
 * decrease and discovered is never below crawled. Best effort: progress is informational, so a failed
 * write is dropped and never delays or fails the crawl; the next report writes the newer figures.
 * A late write never takes back the `rendering` phase the browser stage's store set for this run.
 */
export function createProgressRecorder(
  deps: { db: Db; clock: Clock },
  auditId: string,
  minIntervalMs = 2_000,
  /** When the attempt's crawl began, when this recorder serves one step of it. */
  attemptStartedAt: Date = deps.clock.now(),
  /** The phase the row already shows for this attempt, if its clock goes on here (the analysis runAudit takes over from its parts). */
  continued?: { phase: AuditProgress['phase']; startedAt: Date },
): (progress: AuditProgress) => void {
  let phaseStartedAt = continued?.startedAt ?? deps.clock.now();
  let latest: AuditProgress | undefined;
  let writtenPhase: AuditProgress['phase'] | undefined;
  let lastWriteAt = -Infinity;
  let writing = false;
  let phaseOwed = false;
  const write = (now: number, progress: AuditProgress) => {
    lastWriteAt = now;
    writtenPhase = progress.phase;
    writing = true;
    phaseOwed = false;
    void deps
      .db('audits')
      .where({ id: auditId, status: 'running' })
      .whereRaw(`(progress_phase is distinct from 'rendering' or attempt_started_at is distinct from ?)`, [
        attemptStartedAt,
      ])
      .update({
        progress_phase: progress.phase,
        pages_crawled: progress.pagesCrawled,
        pages_discovered: progress.pagesDiscovered,
        attempt_started_at: attemptStartedAt,
        phase_started_at: phaseStartedAt,
      })
      .catch(() => undefined)
      .finally(() => {
        writing = false;
        if (phaseOwed && latest) write(deps.clock.now().getTime(), latest);
      });
  };
  return (progress) => {
    const now = deps.clock.now();
    if ((latest?.phase ?? continued?.phase) !== progress.phase) phaseStartedAt = now;
    const pagesCrawled = Math.max(latest?.pagesCrawled ?? 0, progress.pagesCrawled);
    const pagesDiscovered = Math.max(latest?.pagesDiscovered ?? 0, progress.pagesDiscovered, pagesCrawled);
    latest = { phase: progress.phase, pagesCrawled, pagesDiscovered };
    const newPhase = progress.phase !== writtenPhase;
    if (writing) phaseOwed ||= newPhase;
    else if (newPhase || now.getTime() - lastWriteAt >= minIntervalMs) write(now.getTime(), latest);
  };
}

/** The progress a row shows: a running live audit's, once its current attempt has reported. */
export function progressOfRow(
  row: { mode: string; status: string; pages_crawled: number | null } & Partial<ProgressColumns>,
): AuditProgress | undefined {
  if (row.mode !== 'live' || row.status !== 'running' || row.pages_crawled === null) return undefined;
  // Written by a worker from before the phase existed (a rolling deploy): a crawl still counting pages.
  const phase = row.progress_phase && AUDIT_PHASES.includes(row.progress_phase) ? row.progress_phase : 'crawling';
  const pagesCrawled = row.pages_crawled;
  return { phase, pagesCrawled, pagesDiscovered: Math.max(row.pages_discovered ?? 0, pagesCrawled) };
}
