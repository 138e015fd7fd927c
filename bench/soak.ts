import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { serveGeneratedSite } from './generated-site';

/**
 * `npm run bench:soak`: the service as `npm start` runs it (one process tree, own data folder), under
 * a mixed load for SOAK_SECONDS (default 600): test-mode triggers at SOAK_TRIGGERS_PER_S, a live
 * audit of a local 10-page site every SOAK_LIVE_EVERY_S, and authenticated reads (one audit, the
 * list) at SOAK_READS_PER_S. Open loop: requests are sent on a clock whether or not the previous ones
 * finished, so a stall shows up as latency instead of hiding as fewer requests. Prints what was
 * accepted, p50/p99 per request kind, completions, and the RSS of every process at start and end.
 */
const exec = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');
const SECONDS = Number(process.env.SOAK_SECONDS || 600);
const TRIGGERS_PER_S = Number(process.env.SOAK_TRIGGERS_PER_S || 10);
const READS_PER_S = Number(process.env.SOAK_READS_PER_S || 100);
// One every 7 s stays under the burst limit of 10 live triggers a minute.
const LIVE_EVERY_S = Number(process.env.SOAK_LIVE_EVERY_S || 7);
const TEST_DOMAINS = 500;

interface Series {
  latencies: number[];
  statuses: Map<number, number>;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-soak-'));
  // Run as root, the embedded Postgres runs as the postgres user, which must reach its folder.
  fs.chmodSync(dataDir, 0o755);
  const port = await freePort();
  const temporalPort = await freePort();
  const site = await serveGeneratedSite(10);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    TEMPORAL_PORT: String(temporalPort),
    DATA_DIR: dataDir,
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  delete env.TEMPORAL_ADDRESS;
  const service = spawn(process.execPath, ['--import', 'tsx', 'processes/main.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const serviceLog = fs.createWriteStream(path.join(dataDir, 'service.log'));
  service.stdout!.pipe(serviceLog);
  service.stderr!.pipe(serviceLog);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(base, service);
    const admin = async (...args: string[]) =>
      JSON.parse(
        (await exec(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args, '--json'], { cwd: ROOT, env }))
          .stdout,
      );
    const account = await admin('account', 'create', '--tier', 'enterprise', '--quota', '100000');
    const testKey = (await admin('key', 'create', '--workspace', account.workspace_id, '--mode', 'test')).key as string;
    const liveKey = (await admin('key', 'create', '--workspace', account.workspace_id, '--mode', 'live')).key as string;
    const testAuth = { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' };
    const liveAuth = { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' };

    const first = await fetch(`${base}/v1/audits`, {
      method: 'POST',
      headers: testAuth,
      body: JSON.stringify({ domain: 'https://soak-0.example.com' }),
    });
    const readId = ((await first.json()) as { audit_id: string }).audit_id;
    const rssStart = await processTreeRss(service.pid!);
    console.log(
      `soak: ${SECONDS} s, ${TRIGGERS_PER_S} test triggers/s, 1 live audit every ${LIVE_EVERY_S} s, ${READS_PER_S} reads/s`,
    );

    const series = { trigger: newSeries(), live: newSeries(), read: newSeries(), list: newSeries() };
    const liveIds: string[] = [];
    const timed = async (s: Series, request: () => Promise<Response>, onBody?: (body: unknown) => void) => {
      const started = performance.now();
      try {
        const response = await request();
        const body = await response.json().catch(() => null);
        s.latencies.push(performance.now() - started);
        s.statuses.set(response.status, (s.statuses.get(response.status) ?? 0) + 1);
        if (response.status === 202 && onBody) onBody(body);
      } catch {
        s.statuses.set(0, (s.statuses.get(0) ?? 0) + 1);
      }
    };
    const inFlight = new Set<Promise<void>>();
    const fire = (p: Promise<void>) => {
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    };
    const startedAt = Date.now();
    const endAt = startedAt + SECONDS * 1000;
    let tick = 0;
    // 10 ms ticks; each kind fires when its share of the elapsed time says so.
    const sent = { trigger: 0, read: 0, live: 0 };
    while (Date.now() < endAt) {
      const elapsedS = (Date.now() - startedAt) / 1000;
      while (sent.trigger < elapsedS * TRIGGERS_PER_S) {
        const domain = `https://soak-${sent.trigger++ % TEST_DOMAINS}.example.com`;
        fire(
          timed(series.trigger, () =>
            fetch(`${base}/v1/audits`, { method: 'POST', headers: testAuth, body: JSON.stringify({ domain }) }),
          ),
        );
      }
      while (sent.read < elapsedS * READS_PER_S) {
        // Nine single-audit reads to one list read.
        if (sent.read++ % 10 === 9)
          fire(timed(series.list, () => fetch(`${base}/v1/audits?limit=20`, { headers: testAuth })));
        else fire(timed(series.read, () => fetch(`${base}/v1/audits/${readId}`, { headers: testAuth })));
      }
      while (sent.live < elapsedS / LIVE_EVERY_S) {
        sent.live++;
        fire(
          timed(
            series.live,
            () =>
              fetch(`${base}/v1/audits`, {
                method: 'POST',
                headers: liveAuth,
                body: JSON.stringify({ domain: site.origin }),
              }),
            (body) => liveIds.push((body as { audit_id: string }).audit_id),
          ),
        );
      }
      if (++tick % 3000 === 0) console.log(`  ${Math.round(elapsedS)} s: ${inFlight.size} requests in flight`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(inFlight);
    const rssEnd = await processTreeRss(service.pid!);

    // Let the backlog drain (bounded), then count what completed. Statuses come from the list
    // endpoint: a live workspace may make only 100 reads a minute.
    const drainStarted = Date.now();
    let live = await statusCounts(base, liveAuth, new Set(liveIds));
    while (Date.now() - drainStarted < 120_000 && (live.queued ?? 0) + (live.running ?? 0) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5000));
      live = await statusCounts(base, liveAuth, new Set(liveIds));
    }
    const drainedS = ((Date.now() - drainStarted) / 1000).toFixed(0);
    const tests = await statusCounts(base, testAuth, null);

    console.log('\nrequests (open loop; status counts, 0 = connection error)');
    for (const [name, s] of Object.entries(series)) printSeries(name, s);
    console.log(`live audits: ${liveIds.length} accepted; after ${drainedS} s of drain: ${formatCounts(live)}`);
    console.log(`test audits (${TEST_DOMAINS} domains, each re-triggered): ${formatCounts(tests)}`);
    console.log('\nRSS per process (MiB): start → end of load; CPU seconds used during the load');
    for (const [pid, start] of rssStart) {
      const end = rssEnd.get(pid);
      const cpu = end ? `   cpu ${end.cpuS - start.cpuS} s` : '';
      console.log(
        `  ${String(start.name).padEnd(40)} ${start.rssMiB.toFixed(0).padStart(5)} → ${end ? end.rssMiB.toFixed(0) : 'gone'}${cpu}`,
      );
    }
    for (const [pid, end] of rssEnd)
      if (!rssStart.has(pid)) console.log(`  ${end.name.padEnd(40)}  (new) → ${end.rssMiB.toFixed(0)}`);
  } catch (err) {
    console.error(
      `service log (last lines):\n${fs.readFileSync(path.join(dataDir, 'service.log'), 'utf8').split('\n').slice(-30).join('\n')}`,
    );
    throw err;
  } finally {
    if (service.exitCode === null) {
      process.kill(-service.pid!, 'SIGTERM');
      await new Promise((resolve) => service.once('exit', resolve));
    }
    await site.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Audits by status, from the list endpoint (only those in `ids` when given). */
async function statusCounts(base: string, headers: Record<string, string>, ids: Set<string> | null) {
  const counts: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const url: string = `${base}/v1/audits?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = (await (await fetch(url, { headers })).json()) as {
      data: Array<{ audit_id: string; status: string }>;
      next_cursor: string | null;
    };
    for (const audit of page.data)
      if (!ids || ids.has(audit.audit_id)) counts[audit.status] = (counts[audit.status] ?? 0) + 1;
    cursor = page.next_cursor;
  } while (cursor);
  return counts;
}

function formatCounts(counts: Record<string, number>): string {
  return (
    Object.entries(counts)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ') || 'none'
  );
}

function newSeries(): Series {
  return { latencies: [], statuses: new Map() };
}

function printSeries(name: string, s: Series): void {
  const sorted = [...s.latencies].sort((a, b) => a - b);
  const pick = (q: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
  const statuses = [...s.statuses].map(([status, n]) => `${status}×${n}`).join(' ');
  console.log(
    `  ${name.padEnd(8)} ${String(sorted.length).padStart(7)} answered   p50 ${pick(0.5).toFixed(1)} ms   p99 ${pick(0.99).toFixed(1)} ms   max ${pick(1).toFixed(0)} ms   ${statuses}`,
  );
}

/** RSS of the service process and every descendant, named by their command line. */
async function processTreeRss(rootPid: number): Promise<Map<number, { name: string; rssMiB: number; cpuS: number }>> {
  const { stdout } = await exec('ps', ['-e', '-o', 'pid=,ppid=,rss=,times=,args=']);
  const rows = stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [pid, ppid, rss, cpu, ...args] = line.trim().split(/\s+/);
      return { pid: Number(pid), ppid: Number(ppid), rssKiB: Number(rss), cpuS: Number(cpu), args: args.join(' ') };
    });
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (tree.has(row.ppid) && !tree.has(row.pid)) (tree.add(row.pid), (grew = true));
  }
  const result = new Map<number, { name: string; rssMiB: number; cpuS: number }>();
  for (const row of rows)
    if (tree.has(row.pid))
      result.set(row.pid, { name: describe(row.pid, row.args), rssMiB: row.rssKiB / 1024, cpuS: row.cpuS });
  return result;
}

/** A readable name: workers differ only by WORKER_KIND in their environment. */
function describe(pid: number, args: string): string {
  if (/temporal\b.*\bserver\b/.test(args)) return 'temporal dev server';
  if (args.startsWith('postgres')) return args.slice(0, 40);
  if (/\bpostgres\b/.test(args) && args.includes(' -D ')) return 'postgres (postmaster)';
  if (args.includes('worker-main')) {
    const environ = fs.existsSync(`/proc/${pid}/environ`) ? fs.readFileSync(`/proc/${pid}/environ`, 'utf8') : '';
    const kind = /WORKER_KIND=(\w+)/.exec(environ)?.[1] ?? 'audits';
    return { audits: 'audit worker', reports: 'report worker', browser: 'browser worker' }[kind] ?? `${kind} worker`;
  }
  if (args.includes('processes/main.ts')) return 'npm start (API + supervisor)';
  return args.slice(0, 40);
}

async function waitHealthy(base: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 300_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the service did not become healthy within 5 minutes');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
