import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { streakCost } from './webhook-streak-cost';
import { benchWorkspace, percentiles, printPercentiles, sleep, startBenchStack, type BenchStack } from './bench-stack';

/**
 * `npm run bench:webhooks`: how fast an audit's webhook goes out, on a fresh stack as `npm start`
 * runs it (workers in their own processes; test mode, so every delivery goes to a local receiver).
 *  1. Latency: one webhook, audits one at a time; from the audit's completed_at to the first attempt
 *     arriving, p50/p95, and from the Temporal histories the audit workflow's first task dispatch and
 *     the DeliveryWorkflows started (none, while every first attempt is acknowledged).
 *  2. Fan-out: WEBHOOKS webhooks × AUDITS audits triggered at once; deliveries per second received.
 *  3. The same fan-out with every webhook's secret just rotated (in its grace period), so every
 *     delivery is signed twice in each signature header.
 *  4. What keeping the failing streak costs an attempt (bench/webhook-streak-cost.ts).
 * The baseline printed beside the figures is the issue's: 210 ms p50 and 27 deliveries/s.
 */
const LATENCY_AUDITS = Number(process.env.BENCH_LATENCY_AUDITS || 30);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS || 10);
const AUDITS = Number(process.env.BENCH_FANOUT_AUDITS || 30);
const BASELINE = { p50Ms: 210, deliveriesPerS: 27 };

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = {
  WorkflowExecutionStarted: 1,
  WorkflowTaskStarted: 6,
  StartChildWorkflowExecutionInitiated: 29,
} as const;

function eventMs(event: HistoryEvent | undefined): number {
  if (!event?.eventTime) return NaN;
  return Number(event.eventTime.seconds) * 1000 + (event.eventTime.nanos ?? 0) / 1e6;
}

function typeOf(event: HistoryEvent): number {
  return Number(event.eventType);
}

/**
 * From the audit workflow's history: how long its first workflow task waited to be dispatched, and
 * how many DeliveryWorkflows it started (none while every first attempt is acknowledged).
 */
async function auditHistory(client: Client, auditId: string): Promise<{ dispatchMs: number; children: number }> {
  const events = (await client.workflow.getHandle(auditId).fetchHistory()).events ?? [];
  const started = events.find((e) => typeOf(e) === EventType.WorkflowExecutionStarted);
  const firstTask = events.find((e) => typeOf(e) === EventType.WorkflowTaskStarted);
  const children = events.filter((e) => typeOf(e) === EventType.StartChildWorkflowExecutionInitiated).length;
  return { dispatchMs: eventMs(firstTask) - eventMs(started), children };
}

async function latency(stack: BenchStack): Promise<number> {
  const { db, api, receiver } = stack;
  const ws = await benchWorkspace(db);
  await addWebhook(stack, ws.headers, 0);
  const totals: number[] = [];
  const dispatches: number[] = [];
  let children = 0;
  for (let i = 0; i < LATENCY_AUDITS + 3; i++) {
    const auditId = await trigger(api.url, ws.headers, `https://latency-${i}.example.com`);
    const receipt = await until(() => receiver.receipts.find((r) => r.auditId === auditId));
    const row = await db('audits').where({ id: auditId }).first('completed_at');
    // The first few warm the worker's caches and the receiver's connection.
    if (i < 3) continue;
    totals.push(receipt.at - new Date(row.completed_at).getTime());
    const history = await auditHistory(api.temporal.client, auditId);
    dispatches.push(history.dispatchMs);
    children += history.children;
  }
  console.log(`\n1. completion → first delivery attempt (one webhook, ${LATENCY_AUDITS} audits one at a time)`);
  printPercentiles('total: audit completed_at → attempt 1 received', totals);
  console.log('  (attempt 1 is made in the workflow task that completes the audit: plan, sign, POST, log)');
  printPercentiles("  for comparison: the audit workflow's first task dispatch", dispatches);
  console.log(`  DeliveryWorkflows started: ${children} (one only for a first attempt not acknowledged)`);
  const p50 = percentiles(totals).p50;
  console.log(
    `  baseline (issue 15): p50 ${BASELINE.p50Ms} ms → now ${p50.toFixed(0)} ms (${(BASELINE.p50Ms / p50).toFixed(1)}× faster)`,
  );
  return p50;
}

async function fanOut(stack: BenchStack, rotated: boolean): Promise<{ perS: number; workspaceId: string }> {
  const { db, api, receiver } = stack;
  const ws = await benchWorkspace(db);
  for (let i = 0; i < WEBHOOKS; i++) {
    const webhookId = await addWebhook(stack, ws.headers, i);
    if (rotated) await rotate(stack, ws.headers, webhookId);
  }
  receiver.receipts.length = 0;
  const expected = WEBHOOKS * AUDITS;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: AUDITS }, (_, i) => trigger(api.url, ws.headers, `https://fanout-${i}.example.com`)),
  );
  const deadline = Date.now() + 180_000;
  while (receiver.receipts.length < expected && Date.now() < deadline) await sleep(10);
  const received = receiver.receipts.length;
  const [{ completed }] = await db('audits')
    .where({ workspace_id: ws.workspaceId, status: 'completed' })
    .count<{ completed: string }[]>('id as completed');
  const ats = receiver.receipts.map((r) => r.at);
  const first = Math.min(...ats);
  const last = Math.max(...ats);
  const endToEnd = received / ((last - started) / 1000);
  const heading = rotated ? '3. fan-out during a secret rotation' : '2. fan-out';
  console.log(`\n${heading}: ${WEBHOOKS} webhooks × ${AUDITS} audits triggered at once (${completed} completed)`);
  console.log(
    `  ${received}/${expected} deliveries received, first after ${first - started} ms, last after ${last - started} ms`,
  );
  console.log(`  trigger → last delivery: ${endToEnd.toFixed(0)} deliveries/s`);
  console.log(`  first → last delivery:   ${(received / ((last - first) / 1000)).toFixed(0)} deliveries/s`);
  const duplicates = received - new Set(receiver.receipts.map((r) => r.deliveryId)).size;
  console.log(`  duplicate first attempts: ${duplicates}`);
  const signed = new Map<number, number>();
  for (const r of receiver.receipts) signed.set(r.signatures, (signed.get(r.signatures) ?? 0) + 1);
  const bySignatures = [...signed].map(([n, count]) => `${count} with ${n} signature${n === 1 ? '' : 's'}`);
  console.log(`  webhook-signature: ${bySignatures.join(', ')}`);
  console.log(
    `  baseline (issue 15): ${BASELINE.deliveriesPerS} deliveries/s → now ${endToEnd.toFixed(0)} (${(endToEnd / BASELINE.deliveriesPerS).toFixed(1)}×)`,
  );
  return { perS: endToEnd, workspaceId: ws.workspaceId };
}

async function addWebhook(stack: BenchStack, headers: Record<string, string>, i: number): Promise<string> {
  const response = await fetch(`${stack.api.url}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `${stack.receiver.url}?webhook=${i}`, events: ['audit.completed'] }),
  });
  if (response.status !== 201)
    throw new Error(`webhook creation answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { webhook_id: string }).webhook_id;
}

/** A new secret, the old one signing beside it for an hour. */
async function rotate(stack: BenchStack, headers: Record<string, string>, webhookId: string): Promise<void> {
  const response = await fetch(`${stack.api.url}/v1/webhooks/${webhookId}/rotate-secret`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ grace_seconds: 3600 }),
  });
  if (response.status !== 200) throw new Error(`rotation answered ${response.status}: ${await response.text()}`);
}

async function trigger(apiUrl: string, headers: Record<string, string>, domain: string): Promise<string> {
  const response = await fetch(`${apiUrl}/v1/audits`, { method: 'POST', headers, body: JSON.stringify({ domain }) });
  if (response.status !== 202) throw new Error(`trigger answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { audit_id: string }).audit_id;
}

async function until<T>(find: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`nothing received within ${timeoutMs} ms`);
    await sleep(2);
  }
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    console.log(`webhook delivery bench (node ${process.version}, test mode, local receiver)`);
    await latency(stack);
    await fanOut(stack, false);
    const { workspaceId } = await fanOut(stack, true);
    await streakCost(stack.db, workspaceId);
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
