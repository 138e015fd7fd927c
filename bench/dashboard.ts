import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest } from '../src/db/knex';
import { setAccountTier } from '../src/accounts/repository';
import { syntheticAudit } from '../src/audits/synthetic';
import { newSiteId } from '../src/ids';
import { startApi } from '../processes/api-service';
import { startTestInfrastructure } from '../test/support/infrastructure';

/**
 * `npm run bench:dashboard`: how fast the dashboard's heaviest pages answer with 1,000 audits in the
 * workspace (the audits list, a completed audit's page and a monitored site's page with its 100
 * audits of history; p50/p99 of the request time on loopback, which is the server's time plus a
 * negligible hop), and the bytes of a cold load of the overview (HTML, stylesheet and script, as
 * served). The pages view on 100,000 pages is bench/dashboard-pages.ts.
 */
const AUDITS = 1000;
/** The audits are spread over this many domains: 100 each. */
const DOMAINS = 10;
const REQUESTS = Number(process.env.BENCH_REQUESTS || 200);

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
    const auditId = await seedAudits(db, workspace.workspace_id, workspace.account_id);
    // Sites are a pro feature; the site's history is the workspace's completed audits of its domain.
    await setAccountTier(db, { accountId: workspace.account_id, tier: 'pro', now: new Date() });
    const siteId = await seedSite(db, workspace.workspace_id, workspace.account_id);

    const overview = await coldLoad(service.url, session.cookie);
    console.log(
      `overview cold load: ${overview.total} bytes (HTML ${overview.html}, CSS ${overview.css}, JS ${overview.js})`,
    );
    for (const [label, path] of [
      [`audits list (${AUDITS} audits, first page of 50)`, '/audits'],
      ['completed audit page', `/audits/${auditId}`],
      [`site page (${AUDITS / DOMAINS} audits of history)`, `/sites/${siteId}`],
    ] as const) {
      const times = await timeRequests(`${service.url}${path}`, session.cookie);
      console.log(`${label}: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`);
    }
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

/** 1,000 completed live audits with real synthetic results; returns the newest one's id. */
async function seedAudits(db: ReturnType<typeof createDb>, workspaceId: string, accountId: string): Promise<string> {
  const start = Date.now() - AUDITS * 60_000;
  const rows = Array.from({ length: AUDITS }, (_, i) => {
    const id = `aud_BENCH${String(i).padStart(6, '0')}${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const domain = `https://site-${i % DOMAINS}.example.com`;
    const at = new Date(start + i * 60_000).toISOString();
    const result = syntheticAudit({
      auditId: id,
      workspaceId,
      domain,
      tier: 'free',
      createdAt: at,
      startedAt: at,
      completedAt: at,
    });
    return {
      id,
      workspace_id: workspaceId,
      account_id: accountId,
      mode: 'live',
      domain,
      site_key: domain.slice('https://'.length),
      tier: 'free',
      status: 'completed',
      score: result.score,
      grade: result.grade,
      charged: false,
      result_json: JSON.stringify(result),
      created_at: at,
      completed_at: at,
      updated_at: at,
    };
  });
  for (let i = 0; i < rows.length; i += 100) await db('audits').insert(rows.slice(i, i + 100));
  return rows[rows.length - 1]!.id;
}

/** A monitored site of the first domain, stored as the site service stores one (its schedule is not needed to show it). */
async function seedSite(db: ReturnType<typeof createDb>, workspaceId: string, accountId: string): Promise<string> {
  const id = newSiteId();
  const now = new Date();
  await db('sites').insert({
    id,
    workspace_id: workspaceId,
    account_id: accountId,
    mode: 'live',
    domain: 'https://site-0.example.com',
    schedule: 'daily',
    time_zone: 'UTC',
    at: null,
    weekday: null,
    day_of_month: null,
    tier: null,
    render: 'sample',
    paused: false,
    paused_reason: null,
    revision: 1,
    created_at: now,
    updated_at: now,
  });
  return id;
}

async function coldLoad(base: string, cookie: string): Promise<Record<'html' | 'css' | 'js' | 'total', number>> {
  const html = await (await fetch(`${base}/`, { headers: { cookie } })).text();
  const asset = async (pattern: RegExp) => {
    const href = pattern.exec(html)?.[1];
    if (!href) throw new Error(`overview names no asset matching ${pattern}`);
    return (await (await fetch(`${base}${href}`)).arrayBuffer()).byteLength;
  };
  const css = await asset(/href="(\/assets\/[^"]+\.css)"/);
  const js = await asset(/src="(\/assets\/[^"]+\.js)"/);
  const htmlBytes = Buffer.byteLength(html);
  return { html: htmlBytes, css, js, total: htmlBytes + css + js };
}

async function timeRequests(url: string, cookie: string): Promise<number[]> {
  for (let i = 0; i < 10; i++) await (await fetch(url, { headers: { cookie } })).text(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url, { headers: { cookie } });
    await response.text();
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
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
