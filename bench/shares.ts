import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createAccount } from '../src/accounts/repository';
import { syntheticAudit } from '../src/audits/synthetic';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createDb, migrateLatest } from '../src/db/knex';
import { saveBranding } from '../src/reports/branding-repository';
import { createShare } from '../src/shares/service';
import { startApi } from '../processes/service';
import { startTestInfrastructure } from '../test/support/infrastructure';
import { tinyPng } from '../test/support/pdf';

/**
 * `npm run bench:shares`: a share link's page and badge under 50 concurrent
 * viewers on loopback (issue 25: page p99 under 100 ms, badge p99 under 20 ms), for a completed pro
 * audit with its synthetic findings and a branded workspace (logo inlined). Each viewer asks again
 * as soon as it has its answer; times are per request, p50 and p99 over all viewers.
 */
const VIEWERS = Number(process.env.BENCH_VIEWERS || 50);
const REQUESTS_PER_VIEWER = Number(process.env.BENCH_REQUESTS || 40);

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
    const url = await seedShare(db, service.url);
    const page = await load(url, {});
    console.log(`share page (${(page.bytes / 1024).toFixed(0)} KiB): ${summary(page.times)}`);
    const badge = await load(`${url}/badge.svg`, {});
    console.log(`badge: ${summary(badge.times)}`);
    const etag = (await fetch(`${url}/badge.svg`)).headers.get('etag')!;
    const revalidated = await load(`${url}/badge.svg`, { 'If-None-Match': etag }, 304);
    console.log(`badge revalidated (304): ${summary(revalidated.times)}`);
  } finally {
    await service.stop();
    await db.destroy();
    await infra.stop();
  }
}

/** A pro account with its branding, one completed live audit, and a link to it. */
async function seedShare(db: ReturnType<typeof createDb>, baseUrl: string): Promise<string> {
  const now = new Date();
  const account = await createAccount(db, { tier: 'pro', customQuota: null, now });
  const auditId = `aud_BENCH${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const domain = 'https://bench-shares.example.com';
  const at = now.toISOString();
  const result = syntheticAudit({
    auditId,
    workspaceId: account.workspace_id,
    domain,
    tier: 'pro',
    createdAt: at,
    startedAt: at,
    completedAt: at,
  });
  await db('audits').insert({
    id: auditId,
    workspace_id: account.workspace_id,
    account_id: account.account_id,
    mode: 'live',
    domain,
    site_key: 'bench-shares.example.com',
    tier: 'pro',
    status: 'completed',
    score: result.score,
    grade: result.grade,
    charged: false,
    result_json: JSON.stringify(result),
    created_at: at,
    completed_at: at,
  });
  const scope = { workspaceId: account.workspace_id, mode: 'live' as const };
  await saveBranding(
    db,
    scope,
    { displayName: 'Acme Digital', primaryColor: '#0b6e4f', logo: tinyPng(200, 60), contactLine: 'hello@acme.example' },
    now,
  );
  const { url } = await createShare(
    { db, clock: systemClock, baseUrl: () => baseUrl },
    { scope, usage: { tier: 'pro' } },
    auditId,
    {},
  );
  console.log(`audit: ${result.findings.length} findings, ${result.crawl.pages_crawled} pages`);
  return url;
}

async function load(url: string, headers: Record<string, string>, status = 200) {
  for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer(); // warm-up
  const times: number[] = [];
  let bytes = 0;
  await Promise.all(
    Array.from({ length: VIEWERS }, async () => {
      for (let i = 0; i < REQUESTS_PER_VIEWER; i++) {
        const started = process.hrtime.bigint();
        const response = await fetch(url, { headers });
        bytes = (await response.arrayBuffer()).byteLength;
        if (response.status !== status) throw new Error(`${url} answered ${response.status}`);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  return { times, bytes };
}

function summary(times: number[]): string {
  return `p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms (${times.length} requests, ${VIEWERS} at once)`;
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
