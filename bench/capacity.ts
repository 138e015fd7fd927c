import { benchWorkspace, percentiles, rssMiB, sleep, startBenchStack, type BenchStack } from './bench-stack';

/**
 * `npm run bench:capacity`: test-mode audits completed per second at saturation, on a fresh stack as
 * `npm start` runs it (workers in their own processes). Open loop: test triggers at each rate of
 * CAPACITY_RATES (per second, CAPACITY_STEP_S seconds each) plus CAPACITY_READS_PER_S reads (nine
 * single-audit reads to one list read), sent on a clock whether or not earlier requests finished.
 * Per step: completions/s, how the backlog (queued + running) moved, request latencies, and the RSS
 * of the worker and the report worker. Stops after two steps in which completions/s did not rise.
 * Baseline printed beside the figures: the issue's ~3.4 completions/s under 20 triggers/s.
 */
const RATES = (process.env.CAPACITY_RATES || '10,20,40,60,80,100,130').split(',').map(Number);
const STEP_S = Number(process.env.CAPACITY_STEP_S || 20);
const READS_PER_S = Number(process.env.CAPACITY_READS_PER_S || 100);
const BASELINE_PER_S = 3.4;

interface StepResult {
  rate: number;
  completedPerS: number;
  backlogStart: number;
  backlogEnd: number;
  triggerMs: number[];
  readMs: number[];
  errors: number;
}

async function backlog(stack: BenchStack): Promise<number> {
  const [{ n }] = await stack.db('audits').whereIn('status', ['queued', 'running']).count<{ n: string }[]>('id as n');
  return Number(n);
}

async function completedBetween(stack: BenchStack, from: Date, to: Date): Promise<number> {
  const [{ n }] = await stack
    .db('audits')
    .where('completed_at', '>=', from)
    .andWhere('completed_at', '<', to)
    .count<{ n: string }[]>('id as n');
  return Number(n);
}

async function step(
  stack: BenchStack,
  ws: Awaited<ReturnType<typeof benchWorkspace>>,
  rate: number,
  state: { sent: number; readId: string },
): Promise<StepResult> {
  const result: StepResult = {
    rate,
    completedPerS: 0,
    backlogStart: await backlog(stack),
    backlogEnd: 0,
    triggerMs: [],
    readMs: [],
    errors: 0,
  };
  const inFlight = new Set<Promise<void>>();
  const timed = (into: number[], request: () => Promise<Response>, ok: number) => {
    const started = performance.now();
    const p = request()
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== ok) result.errors++;
        else into.push(performance.now() - started);
      })
      .catch(() => void result.errors++)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const base = stack.api.url;
  const startedAt = Date.now();
  const from = new Date(startedAt);
  let triggers = 0;
  let reads = 0;
  while (Date.now() - startedAt < STEP_S * 1000) {
    const elapsedS = (Date.now() - startedAt) / 1000;
    while (triggers < elapsedS * rate) {
      triggers++;
      const domain = `https://capacity-${state.sent++}.example.com`;
      timed(
        result.triggerMs,
        () => fetch(`${base}/v1/audits`, { method: 'POST', headers: ws.headers, body: JSON.stringify({ domain }) }),
        202,
      );
    }
    while (reads < elapsedS * READS_PER_S) {
      const url = reads++ % 10 === 9 ? `${base}/v1/audits?limit=20` : `${base}/v1/audits/${state.readId}`;
      timed(result.readMs, () => fetch(url, { headers: ws.headers }), 200);
    }
    await sleep(5);
  }
  const to = new Date();
  await Promise.all(inFlight);
  result.completedPerS = (await completedBetween(stack, from, to)) / ((to.getTime() - from.getTime()) / 1000);
  result.backlogEnd = await backlog(stack);
  return result;
}

function print(r: StepResult, rss: { worker: number; reports: number }): void {
  const t = percentiles(r.triggerMs);
  const g = percentiles(r.readMs);
  const growth = (r.backlogEnd - r.backlogStart) / STEP_S;
  console.log(
    `${String(r.rate).padStart(5)}/s  ${r.completedPerS.toFixed(1).padStart(6)}/s  ` +
      `${String(r.backlogStart).padStart(6)} → ${String(r.backlogEnd).padEnd(6)} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}/s)  ` +
      `trigger p50 ${t.p50.toFixed(0).padStart(4)} p99 ${t.p99.toFixed(0).padStart(5)} ms  read p50 ${g.p50.toFixed(0).padStart(4)} p99 ${g.p99.toFixed(0).padStart(5)} ms  ` +
      `errors ${r.errors}  rss worker ${rss.worker.toFixed(0)} / reports ${rss.reports.toFixed(0)} MiB`,
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const ws = await benchWorkspace(stack.db);
    const first = await fetch(`${stack.api.url}/v1/audits`, {
      method: 'POST',
      headers: ws.headers,
      body: JSON.stringify({ domain: 'https://capacity-read.example.com' }),
    });
    const state = { sent: 0, readId: ((await first.json()) as { audit_id: string }).audit_id };
    console.log(
      `capacity (node ${process.version}): test triggers per step + ${READS_PER_S} reads/s, ${STEP_S} s per step`,
    );
    console.log(`  rss at start: worker ${(await rssMiB(stack.worker.pid())).toFixed(0)} MiB`);
    console.log('trigger rate  completed   backlog (queued+running)');
    let best = 0;
    let flat = 0;
    for (const rate of RATES) {
      const r = await step(stack, ws, rate, state);
      print(r, { worker: await rssMiB(stack.worker.pid()), reports: await rssMiB(stack.reportWorker.pid()) });
      if (r.completedPerS > best * 1.05) {
        best = r.completedPerS;
        flat = 0;
      } else if (++flat >= 2) break;
    }
    console.log(`\ncompletions/s at saturation: ${best.toFixed(1)} (baseline, issue 15: ${BASELINE_PER_S}/s)`);
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
