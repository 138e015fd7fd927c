import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { replaceCrawlFacts } from '../src/audits/crawl-facts-store';
import type { PageFact } from '../src/audits/crawl-facts';
import { syntheticAudit } from '../src/audits/synthetic';
import { startApi } from '../processes/service';
import { startTestInfrastructure } from '../test/support/infrastructure';

/**
 * `npm run bench:dashboard-pages`: the dashboard's pages view (`/audits/{id}/pages`) on an audit of
 * 100,000 pages whose facts are stored straight into Postgres (audit_pages, as a completed run
 * writes them). For the first page of each order and of the filters, p50/p99 of the request time on
 * loopback (the server's time plus a negligible hop), then the plan of its query (EXPLAIN ANALYZE):
 * how many rows each scan read to show the 50. Target: first page p99 < 200 ms.
 */
const PAGES = Number(process.env.BENCH_PAGES || 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS || 200);

const VIEWS: Array<[string, string]> = [
  ['crawl order', ''],
  ['URL A–Z', 'sort=url&order=asc'],
  ['URL Z–A', 'sort=url&order=desc'],
  ['status, highest first', 'sort=status&order=desc'],
  ['depth, deepest first', 'sort=depth&order=desc'],
  ['inlinks, most first', 'sort=inlinks&order=desc'],
  ['response time, slowest first', 'sort=response_ms&order=desc'],
  ['size, largest first', 'sort=bytes&order=desc'],
  ['status 404', 'status=404'],
  ['status 4xx by response time', 'status=4xx&sort=response_ms&order=desc'],
  ['depth 3 to 4', 'min_depth=3&max_depth=4'],
  ['not indexable, by size', 'indexable=false&sort=bytes&order=desc'],
];

async function main(): Promise<void> {
  const infra = await startTestInfrastructure(() => undefined);
  const config = loadConfig({ ...process.env, PORT: '0' });
  const databaseUrl = process.env.TEST_DATABASE_URL!;
  const db = createDb(databaseUrl, { max: 20 });
  await migrateLatest(db);
  const service = await startApi({
    config,
    db,
    databaseUrl,
    clock: systemClock,
    temporalAddress: process.env.TEST_TEMPORAL_ADDRESS!,
    workers: () => ({}),
    log: () => undefined,
    accessLog: pino({ level: 'silent' }),
  });
  try {
    const session = await signUp(service.url);
    const workspace = await db('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .join('workspaces as w', 'w.id', 'm.workspace_id')
      .where('u.email', session.email)
      .first('w.id as workspace_id', 'w.account_id');
    const stored = Date.now();
    const auditId = await seedAudit(db, workspace.workspace_id, workspace.account_id);
    console.log(`stored a ${PAGES.toLocaleString('en')}-page audit's facts in ${Date.now() - stored} ms`);

    const queries: string[] = [];
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (/from "audit_pages"/.test(q.sql)) queries.push(JSON.stringify([q.sql, q.bindings ?? []]));
    });
    for (const [label, query] of VIEWS) {
      const path = `/audits/${auditId}/pages${query ? `?${query}` : ''}`;
      const times = await timeRequests(`${service.url}${path}`, session.cookie);
      const [sql, bindings] = JSON.parse(queries[queries.length - 1]!) as [string, unknown[]];
      queries.length = 0;
      console.log(
        `${label.padEnd(32)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms  ${await planSummary(db, sql, bindings)}`,
      );
    }
    const next = await secondPage(service.url, auditId, session.cookie);
    console.log(
      `${'second page (size, largest first)'.padEnd(32)} p50 ${next.p50.toFixed(1).padStart(6)} ms  p99 ${next.p99.toFixed(1).padStart(6)} ms`,
    );
  } finally {
    await service.stop();
    await db.destroy();
    await infra.stop();
  }
}

/** Signs up through the forms as a browser would; returns the session cookie. */
async function signUp(base: string): Promise<{ email: string; cookie: string }> {
  const form = await fetch(`${base}/signup`);
  const csrfCookie = (form.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const email = `bench-${randomUUID()}@example.com`;
  const answer = await fetch(`${base}/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie, origin: base },
    body: new URLSearchParams({ _csrf: token, email, password: 'violet-harbour-lantern-42' }).toString(),
  });
  const cookie = answer.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('dash_session='));
  if (!cookie) throw new Error(`sign-up answered ${answer.status} without a session`);
  return { email, cookie };
}

/** A completed live audit with a synthetic result, and PAGES page facts of varied status, depth and size. */
async function seedAudit(db: Db, workspaceId: string, accountId: string): Promise<string> {
  const id = `aud_BENCHPAGES${randomUUID().replace(/-/g, '').slice(0, 14)}`;
  const domain = 'https://big.example.com';
  const at = new Date().toISOString();
  const result = syntheticAudit({
    auditId: id,
    workspaceId,
    domain,
    tier: 'pro',
    createdAt: at,
    startedAt: at,
    completedAt: at,
  });
  result.crawl.pages_crawled = PAGES;
  await db('audits').insert({
    id,
    workspace_id: workspaceId,
    account_id: accountId,
    mode: 'live',
    domain,
    site_key: 'big.example.com',
    tier: 'pro',
    status: 'completed',
    score: result.score,
    grade: result.grade,
    charged: false,
    result_json: JSON.stringify(result),
    created_at: at,
    completed_at: at,
    updated_at: at,
  });
  await replaceCrawlFacts(db, id, { pages: pageFacts(domain), findingUrls: [] });
  await db.raw('ANALYZE audit_pages');
  return id;
}

function* pageFacts(domain: string): Generator<PageFact> {
  for (let i = 0; i < PAGES; i++) {
    const url = `${domain}/section-${i % 97}/${i % 7 === 0 ? 'archive/' : ''}page-${i}`;
    const status = i % 1000 === 9 ? null : i % 200 === 3 ? 500 : i % 50 === 7 ? 404 : i % 25 === 1 ? 301 : 200;
    const indexable = status === 200 && i % 10 !== 4;
    yield {
      url,
      status,
      depth: i === 0 ? 0 : i % 500 === 11 ? null : Math.min(12, Math.floor(Math.log2(i + 2))),
      inlinks: (i * 7919) % 300,
      outlinks: (i * 31) % 120,
      title: status === 200 ? `Page ${i} of the big site` : null,
      content_type: status === null ? null : 'text/html; charset=utf-8',
      bytes: 2000 + ((i * 104729) % 500_000),
      response_ms: 20 + ((i * 7907) % 3000),
      indexable,
      canonical: indexable ? url : null,
      redirect_to: status === 301 ? `${url}/` : null,
    };
  }
}

/** The plan of the page's query: each scan's rows read, and the execution time. */
async function planSummary(db: Db, sql: string, bindings: unknown[]): Promise<string> {
  // knex reports the SQL with pg's numbered placeholders, in order; raw() takes question marks.
  const result = await db.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`, bindings as never);
  const [plan] = result.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>;
  const scans: string[] = [];
  const walk = (node: PlanNode) => {
    if (/Scan/.test(node['Node Type']))
      scans.push(
        `${node['Node Type']}${node['Index Name'] ? ` ${node['Index Name']}` : ''}: ${node['Actual Rows'] * (node['Actual Loops'] ?? 1)} rows${node['Rows Removed by Filter'] ? ` (+${node['Rows Removed by Filter']} filtered out)` : ''}`,
      );
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan!.Plan);
  return `${scans.join('; ')}; ${plan!['Execution Time'].toFixed(2)} ms in Postgres`;
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** The page the first page's "Next" link leads to, timed the same way. */
async function secondPage(base: string, auditId: string, cookie: string): Promise<{ p50: number; p99: number }> {
  const first = await (
    await fetch(`${base}/audits/${auditId}/pages?sort=bytes&order=desc`, { headers: { cookie } })
  ).text();
  const href = /<a href="([^"]+)">Next<\/a>/.exec(first)?.[1]?.replace(/&amp;/g, '&');
  if (!href) throw new Error('the first page has no Next link');
  const times = await timeRequests(`${base}${href}`, cookie);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function timeRequests(url: string, cookie: string): Promise<number[]> {
  for (let i = 0; i < 10; i++) await (await fetch(url, { headers: { cookie } })).text(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url, { headers: { cookie } });
    const html = await response.text();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${html.slice(0, 300)}`);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
