import type { Db } from '../../db/knex';
import { runPool } from '../abort';
import { CHECK_POOL, checkResource, finalStatus, type CheckedTargets } from '../link-checks';
import { committedStep, loadCrawlRun } from './run-store';
import { databaseWait, stepContext, stepWindow, type StepEnvironment } from './step-context';

interface ClaimedTarget {
  url: string;
  kind: 'resource' | 'link';
  resource_kind: NonNullable<CheckedTargets['resources'][number]['kind']> | null;
  found_on: string[];
  linked_from: number;
}

/** What a check found, stored with its target: a resource's answer, or a link's final status. */
export type TargetCheck = Partial<CheckedTargets> | { status: number | null };

export interface CheckStepResult {
  claimed: number;
  checked: number;
}

/**
 * One checkpointed step of the link and resource checks: claims unchecked targets, checks each
 * once (the host limits split as for the page steps) and stores every answer in one transaction.
 */
export async function runCheckStep(
  db: Db,
  input: { crawlId: string; step: number; stepPages: number },
  env: StepEnvironment,
): Promise<CheckStepResult> {
  const stepKey = `check-${input.step}`;
  const wait = databaseWait(env);
  const done = await wait(() => committedStep<CheckStepResult>(db, input.crawlId, stepKey));
  if (done) return done;
  const run = await wait(() => loadCrawlRun(db, input.crawlId));
  if (!run) throw new Error(`crawl ${input.crawlId} does not exist`);
  // A check step takes as many targets as a page step takes pages (CRAWL_STEP_PAGES).
  const claimed = await wait(() => claimTargets(db, input.crawlId, input.step, input.stepPages));
  if (claimed.length === 0) return { claimed: 0, checked: 0 };
  const { context } = stepContext(run, env);
  const answers = new Map<string, TargetCheck>();
  const pool = Math.max(1, Math.floor(CHECK_POOL / stepWindow(run, env.concurrencyPerHost)));
  await runPool(context.aborter, claimed, pool, async (target) => {
    const ref = { foundOn: target.found_on, linkedFrom: target.linked_from };
    if (target.kind === 'link') return void answers.set(target.url, { status: await finalStatus(context, target.url) });
    const checked: CheckedTargets = { resources: [], linkChecks: [], stylesheets: [] };
    await checkResource(context, target.url, { ...ref, kind: target.resource_kind ?? undefined }, checked);
    answers.set(target.url, checked);
  });
  return wait(() => commitChecks(db, input.crawlId, stepKey, answers, claimed.length));
}

/** Stores the step's answers and its result in one transaction (a retry after the commit returns it). */
async function commitChecks(
  db: Db,
  crawlId: string,
  stepKey: string,
  answers: ReadonlyMap<string, TargetCheck>,
  claimed: number,
): Promise<CheckStepResult> {
  return db.transaction(async (trx) => {
    const again = (await trx('crawl_steps').where({ crawl_id: crawlId, step: stepKey }).first('result')) as
      { result: string } | undefined;
    if (again) return JSON.parse(again.result) as CheckStepResult;
    await trx.raw(
      `UPDATE crawl_targets AS t SET checked = a.checked
         FROM json_to_recordset(:answers::json) AS a(url text, checked text)
        WHERE t.crawl_id = :crawlId AND t.url = a.url`,
      {
        crawlId,
        answers: JSON.stringify([...answers].map(([url, check]) => ({ url, checked: JSON.stringify(check) }))),
      },
    );
    const result = { claimed, checked: answers.size };
    await trx('crawl_steps').insert({ crawl_id: crawlId, step: stepKey, result: JSON.stringify(result) });
    return result;
  });
}

/** The step's targets: its own when retried, else the next unchecked ones in the order they were found. */
async function claimTargets(db: Db, crawlId: string, step: number, take: number): Promise<ClaimedTarget[]> {
  const columns = ['url', 'kind', 'resource_kind', 'found_on', 'linked_from'];
  const again = (await db('crawl_targets')
    .where({ crawl_id: crawlId, step })
    .whereNull('checked')
    .orderBy('seq')
    .select(columns)) as ClaimedTarget[];
  if (again.length > 0) return again;
  const result = await db.raw<{ rows: (ClaimedTarget & { seq: string })[] }>(
    `UPDATE crawl_targets SET step = :step
      WHERE crawl_id = :crawlId AND url IN (
        SELECT url FROM crawl_targets WHERE crawl_id = :crawlId AND checked IS NULL AND step IS NULL
         ORDER BY seq LIMIT :take FOR UPDATE SKIP LOCKED)
      RETURNING url, kind, resource_kind, found_on, linked_from, seq`,
    { crawlId, step, take },
  );
  return result.rows.sort((a, b) => Number(a.seq) - Number(b.seq));
}
