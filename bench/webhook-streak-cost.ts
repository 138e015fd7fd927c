import type { Db } from '../src/db/knex';
import { updateDeliveryAndStreak } from '../src/webhooks/failing-streak';
import { percentiles } from './bench-stack';

/**
 * What the disable bookkeeping (docs/architecture.md, "Webhook health") costs an attempt: the
 * statement that records an attempt also keeps the webhook's failing streak. Measured against the
 * same delivery update without it (the baseline, run interleaved in the same process on the same
 * rows), for a failed attempt and for an acknowledged one. Neither adds a round trip: one statement
 * each way.
 */
const ROUNDS = Number(process.env.BENCH_STREAK_ROUNDS || 2000);

export async function streakCost(db: Db, workspaceId: string): Promise<void> {
  const ids = (await db('deliveries').where({ workspace_id: workspaceId }).limit(200).pluck('id')) as string[];
  if (!ids.length) throw new Error('no deliveries to measure on');
  const samples = {
    failedPlain: [] as number[],
    failedStreak: [] as number[],
    okPlain: [] as number[],
    okStreak: [] as number[],
  };
  for (let i = 0; i < ROUNDS; i++) {
    const deliveryId = ids[i % ids.length]!;
    const at = new Date();
    const input = { deliveryId, attempt: 2, startedAt: at, nextAttemptAt: new Date(at.getTime() + 60_000) };
    samples.failedPlain.push(await timed(db, (trx) => plainUpdate(trx, input, false)));
    samples.failedStreak.push(await timed(db, (trx) => updateDeliveryAndStreak(trx, { ...input, delivered: false })));
    samples.okPlain.push(await timed(db, (trx) => plainUpdate(trx, input, true)));
    samples.okStreak.push(await timed(db, (trx) => updateDeliveryAndStreak(trx, { ...input, delivered: true })));
  }
  console.log(`\n4. disable bookkeeping per attempt (${ROUNDS} rounds, one transaction each, interleaved)`);
  line('failed attempt', samples.failedPlain, samples.failedStreak);
  line('acknowledged attempt', samples.okPlain, samples.okStreak);
  console.log('  round trips per attempt: 1 with the streak, 1 without (the streak rides in the same statement)');
}

type Trx = Parameters<Parameters<Db['transaction']>[0]>[0];

async function timed(db: Db, work: (trx: Trx) => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await db.transaction(async (trx) => {
    await work(trx);
  });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/** The delivery's update alone: what recording an attempt cost before the streak was kept. */
async function plainUpdate(
  trx: Trx,
  input: { deliveryId: string; attempt: number; startedAt: Date; nextAttemptAt: Date },
  delivered: boolean,
): Promise<void> {
  await trx('deliveries')
    .where({ id: input.deliveryId })
    .update({
      attempts: trx.raw('greatest(attempts, ?)', [input.attempt]),
      last_attempt_at: input.startedAt,
      next_attempt_at: input.nextAttemptAt,
      ...(delivered ? { state: 'delivered', delivered_at: input.startedAt } : {}),
    });
}

function line(name: string, baseline: number[], withStreak: number[]): void {
  const b = percentiles(baseline);
  const s = percentiles(withStreak);
  console.log(
    `  ${name.padEnd(22)} p50 ${s.p50.toFixed(3)} ms (baseline ${b.p50.toFixed(3)} ms, +${(s.p50 - b.p50).toFixed(3)} ms)  ` +
      `p95 ${s.p95.toFixed(3)} ms (baseline ${b.p95.toFixed(3)} ms)  ratio ${(s.p50 / b.p50).toFixed(2)}×`,
  );
}
