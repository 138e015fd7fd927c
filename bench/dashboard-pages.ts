import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest, type Db } from '../src/db/knex';
import { replaceCrawlFacts } from '../src/audits/crawl-facts-store';
import type { PageFact } from '../src/audits/crawl-facts';
import { syntheticAudit } from '../src/audits/synthetic';
import { startApi } from '../processes/api-service';
import { startTestInfrastructure } from '../test/support/infrastructure';

/**
 * `npm run bench:dashboard-pages`: the dashboard's pages view (`/audits/{id}/pages`) on an audit of
 * 100,000 pages whose facts are stored straight into Postgres (audit_pages, as a completed run
 * writes them). For the first page of each order and of the filters, p50/p99 of the request time on
 * loopback (the server's time plus a negligible hop), then the plan of every query of audit_pages the
 * request made (EXPLAIN ANALYZE): the rows its scans read, against the rows the listing returned (the
 * 50 shown and one that says there is a next page). Target: first page p99 < 200 ms, and no view
 * reading rows it does not show (src/audits/page-order.ts).
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
  ['indexable, by URL', 'indexable=true&sort=url&order=asc'],
  ['status 3xx, deepest first', 'status=3xx&sort=depth&order=desc'],
  ['status 5xx, by status', 'status=5xx&sort=status&order=desc'],
  ['depth 10 and deeper, by inlinks', 'min_depth=10&sort=inlinks&order=desc'],
  ['depth 3 to 4, by status', 'min_depth=3&max_depth=4&sort=status&order=desc'],
  // Depth with status or indexable in another order: cells of one indexable value, status and depth.
  ['status 404 to depth 11, by size', 'status=404&max_depth=11&sort=bytes&order=desc'],
  ['indexable, depth 2 to 5, by URL', 'indexable=true&min_depth=2&max_depth=5&sort=url&order=asc'],
  ['status 3xx, depth 1 to 3, by status', 'status=3xx&min_depth=1&max_depth=3&sort=status&order=desc'],
];

/** The page each of these views' "Next" leads to. */
const SECOND_PAGES: Array<[string, string]> = [
  ['second page, size', 'sort=bytes&order=desc'],
  ['second page, not indexable by size', 'indexable=false&sort=bytes&order=desc'],
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

    const queries: Array<[string, unknown[]]> = [];
    db.on('query', (q: { sql: string; bindings?: unknown[] }) => {
      if (/from "?audit_pages"?/i.test(q.sql)) queries.push([q.sql, q.bindings ?? []]);
    });
    const report = async (label: string, path: string) => {
      const times = await timeRequests(`${service.url}${path}`, session.cookie);
      queries.length = 0;
      await (await fetch(`${service.url}${path}`, { headers: { cookie: session.cookie } })).text();
      const plans: Plan[] = [];
      for (const [sql, bindings] of queries.splice(0)) plans.push(await plan(db, sql, bindings));
      console.log(
        `${label.padEnd(34)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms  ${planSummary(plans)}`,
      );
    };
    for (const [label, query] of VIEWS) await report(label, `/audits/${auditId}/pages${query ? `?${query}` : ''}`);
    for (const [label, query] of SECOND_PAGES)
      await report(label, await nextHref(service.url, `/audits/${auditId}/pages?${query}`, session.cookie));
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

interface Plan {
  /** Rows the scans of audit_pages read: kept, and removed by a filter or a recheck. */
  read: number;
  removed: number;
  /** Rows the query returned. */
  returned: number;
  indexes: string[];
  ms: number;
}

/** The plan of one query as it ran (EXPLAIN ANALYZE): what its scans of audit_pages read. */
async function plan(db: Db, sql: string, bindings: unknown[]): Promise<Plan> {
  // knex reports the SQL with pg's numbered placeholders, in order; raw() takes question marks.
  const result = await db.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql.replace(/\$\d+/g, '?')}`, bindings as never);
  const [explained] = result.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>;
  const found: Plan = { read: 0, removed: 0, returned: explained!.Plan['Actual Rows'], indexes: [], ms: 0 };
  found.ms = explained!['Execution Time'];
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] === 'audit_pages') {
      const loops = node['Actual Loops'] ?? 1;
      const removed = ((node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * loops;
      found.read += Math.round(node['Actual Rows'] * loops) + removed;
      found.removed += removed;
      found.indexes.push(node['Index Name'] ?? node['Node Type']);
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(explained!.Plan);
  return found;
}

/** The request's queries: rows read against rows the listing (the last query) returned, and how. */
function planSummary(plans: Plan[]): string {
  const read = plans.reduce((sum, p) => sum + p.read, 0);
  const removed = plans.reduce((sum, p) => sum + p.removed, 0);
  const counts = new Map<string, number>();
  for (const name of plans.flatMap((p) => p.indexes)) counts.set(name, (counts.get(name) ?? 0) + 1);
  const how = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
  const ms = plans.reduce((sum, p) => sum + p.ms, 0);
  return `read ${read} rows${removed ? ` (${removed} filtered out)` : ''} for ${plans.at(-1)?.returned ?? 0} returned in ${plans.length} quer${plans.length === 1 ? 'y' : 'ies'}; ${how}; ${ms.toFixed(2)} ms in Postgres`;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Where the first page's "Next" link leads. */
async function nextHref(base: string, path: string, cookie: string): Promise<string> {
  const first = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
  const href = /<a href="([^"]+)">Next<\/a>/.exec(first)?.[1]?.replace(/&amp;/g, '&');
  if (!href) throw new Error(`${path}: the first page has no Next link`);
  return href;
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
