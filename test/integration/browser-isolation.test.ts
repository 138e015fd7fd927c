import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { BrowserPool } from '../../src/browser/pool';
import type { BrowserRefusal } from '../../src/browser/proxy';
import { runBrowserStage } from '../../src/browser/stage';
import { parseCidrList } from '../../src/outbound/policy';
import { auditWorkflowId } from '../../workflows/contracts';
import { CHROMIUM_PATH, ensureChromium } from '../support/chromium';
import { childProcesses, isAlive, startServiceProcess, type ServiceProcess } from '../support/processes';
import { until } from '../support/receiver';
import { api, getStack, newAccount, startExtraApi, stopExtraApi } from '../support/stack';
import type { RunningApi } from '../../processes/api-service';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback listener that counts what reaches it: datagrams (udp) or accepted connections (tcp). */
interface Canary {
  host: string;
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function udpCanary(host: string): Promise<Canary> {
  const socket = dgram.createSocket('udp4');
  const hits: string[] = [];
  socket.on('message', (message, from) => hits.push(`${message.length} bytes from ${from.address}:${from.port}`));
  await new Promise<void>((resolve) => socket.bind(0, host, resolve));
  const { port } = socket.address();
  return { host, port, hits, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

async function tcpCanary(host: string): Promise<Canary> {
  const hits: string[] = [];
  const server = net.createServer((socket) => {
    hits.push(`connection from ${socket.remoteAddress}:${socket.remotePort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { host, port, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * A page that reaches for the canaries every way a page can: WebRTC (STUN, TURN over UDP and TCP),
 * WebTransport (QUIC), and plain fetch, WebSocket and an image. ICE gathering's end is reported to
 * /report with the candidates found, so the test knows the WebRTC part ran to its end.
 */
function canaryPage(c: { stun: Canary; turnUdp: Canary; quic: Canary; web: Canary; turnTcp: Canary }): string {
  const at = (canary: Canary) => `${canary.host}:${canary.port}`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Canary page</title></head>
<body><h1>Canary page</h1><p>This page reaches for loopback canaries around the outbound proxy.</p>
<img src="http://${at(c.web)}/pixel.png" width="10" height="10" alt="canary">
<script>
  const report = (what, value) => fetch('/report?' + what + '=' + encodeURIComponent(JSON.stringify(value)));
  const pc = new RTCPeerConnection({ iceServers: [
    { urls: 'stun:${at(c.stun)}' },
    { urls: ['turn:${at(c.turnUdp)}?transport=udp', 'turn:${at(c.turnTcp)}?transport=tcp'], username: 'canary', credential: 'canary' },
  ] });
  const candidates = [];
  pc.onicecandidate = (e) => { if (e.candidate) candidates.push(e.candidate.candidate); };
  pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') report('ice', candidates); };
  pc.createDataChannel('canary');
  pc.createOffer().then((offer) => pc.setLocalDescription(offer)).catch((err) => report('error', String(err)));
  fetch('http://${at(c.web)}/fetch').catch(() => undefined);
  new WebSocket('ws://${at(c.web)}/socket');
  new WebTransport('https://${at(c.quic)}/transport').ready.catch(() => undefined);
</script></body></html>`;
}

/**
 * What a crawled page can make the browser stage's Chromium send must go through the outbound proxy,
 * the only place the policy is applied. The policy here allows 127.0.0.1 (the page's site) only; the
 * canaries listen on other loopback addresses or take UDP, which the proxy cannot carry at all.
 */
describe('browser stage: no traffic around the outbound proxy', function () {
  this.timeout(180_000);
  const canaries: Canary[] = [];
  const reports = new Map<string, unknown>();
  const refusals: BrowserRefusal[] = [];
  let site: http.Server;
  let pool: BrowserPool;

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    const c = {
      stun: await udpCanary('127.0.0.1'),
      turnUdp: await udpCanary('127.0.0.1'),
      quic: await udpCanary('127.0.0.4'),
      web: await tcpCanary('127.0.0.2'),
      turnTcp: await tcpCanary('127.0.0.3'),
    };
    canaries.push(...Object.values(c));
    const page = canaryPage(c);
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://site');
      if (url.pathname === '/report') {
        for (const [what, value] of url.searchParams) reports.set(what, JSON.parse(value));
        return void res.writeHead(204).end();
      }
      if (url.pathname !== '/') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    pool = new BrowserPool({
      executablePath: CHROMIUM_PATH,
      size: 1,
      allow: parseCidrList('127.0.0.1/32'),
      onRefused: (entry) => refusals.push(entry),
    });
  });

  after(async () => {
    await pool?.close();
    await new Promise((resolve) => site?.close(resolve));
    for (const canary of canaries) await canary.close();
  });

  it('WebRTC, UDP and TCP canaries on loopback receive nothing; what the page tried went to the proxy', async () => {
    const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const result = await runBrowserStage(origin, { render: (url) => pool.render(url), sample: async () => [] });
    assert.equal(result.pages.length, 1);
    assert.equal(result.pages[0].status, 'measured', JSON.stringify(result.pages[0]));
    // STUN and TURN retransmit for seconds: late datagrams still count.
    await pause(2000);

    const hits = canaries.flatMap((canary) => canary.hits.map((hit) => `${canary.host}:${canary.port} ← ${hit}`));
    console.log(`      ${hits.length} datagrams and connections reached the canaries`);
    assert.deepEqual(hits, []);
    assert.equal(reports.get('error'), undefined);
    assert.deepEqual(reports.get('ice'), [], 'ICE gathering ended, without a candidate (no host, srflx or relay)');
    // The page did reach for them, through the proxy: its requests and WebRTC's TURN over TCP were refused there.
    const refusedHosts = new Set(refusals.map((r) => r.host));
    assert.ok(refusedHosts.has('127.0.0.2'), JSON.stringify(refusals));
    assert.ok(refusedHosts.has('127.0.0.3'), JSON.stringify(refusals));
  });
});

/** A live process started from Chromium's installation (the browser, its helpers, its crash handler). */
interface ChromiumProc {
  pid: number;
  /** Its start time (/proc/<pid>/stat field 22): a pid reused later is another process. */
  start: string;
  command: string;
}

// Debian's /usr/bin/chromium is a shell script that execs the binaries installed here.
const CHROMIUM_DIR = '/usr/lib/chromium/';

interface ProcEntry extends ChromiumProc {
  ppid: number;
  session: number;
  marked: boolean;
}

/** Every live process (zombies are not: nothing may reap them in a container) from /proc. */
function processTable(marker: string): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (!stat || stat.state === 'Z') continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const marked = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(marker);
      table.push({ pid: Number(entry), ...stat, command, marked });
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

function procStat(pid: number): { state: string; ppid: number; session: number; start: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command name) may contain spaces; the rest starts at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], ppid: Number(fields[1]), session: Number(fields[3]), start: fields[19] };
  } catch {
    return null;
  }
}

/**
 * The Chromium processes the service under test started: those whose environment carries `marker`
 * (the browser; its crash handler, which double-forks into a session of its own), and those in
 * their sessions or below them (zygotes, renderers and utilities rewrite their environment's
 * memory for their titles, so theirs cannot be read).
 */
function serviceChromiums(marker: string): ChromiumProc[] {
  const table = processTable(marker);
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const marked = table.filter((p) => p.marked);
  const sessions = new Set(marked.map((p) => p.session));
  const underMarked = (p: ProcEntry) => {
    for (let at = byPid.get(p.ppid); at; at = byPid.get(at.ppid)) if (at.marked) return true;
    return false;
  };
  return table
    .filter((p) => p.command.startsWith(CHROMIUM_DIR))
    .filter((p) => p.marked || sessions.has(p.session) || underMarked(p))
    .map(({ pid, start, command }) => ({ pid, start, command }));
}

/** Those of `procs` still running. */
function stillRunning(procs: ChromiumProc[]): ChromiumProc[] {
  return procs.filter((p) => {
    const stat = procStat(p.pid);
    return stat !== null && stat.state !== 'Z' && stat.start === p.start;
  });
}

const label = (p: ChromiumProc) => `${p.pid} ${p.command.slice(0, 120)}`;

function isDescendantOf(pid: number, ancestor: number): boolean {
  for (let at = procStat(pid)?.ppid; at && at > 1; at = procStat(at)?.ppid) if (at === ancestor) return true;
  return false;
}

/**
 * `npm start` with the browser role only, on the run's Postgres and Temporal: its browser worker
 * renders the home page of a live audit (a page whose image never loads, so the render is under
 * way for half a minute), and is then killed with SIGKILL; later the whole group gets SIGTERM.
 * No Chromium process the worker started may outlive it.
 */
describe('Chromium never outlives its browser worker (real processes)', function () {
  this.timeout(420_000);
  const marker = `AUDIT_ISOLATION_TEST=${randomUUID()}`;
  const taskQueue = `browser-isolation-${process.pid}`;
  const auditIds: string[] = [];
  const seen = new Map<number, ChromiumProc>();
  let service: ServiceProcess;
  let killedWorker = 0;
  /** The profile of the Chromium that died with the killed worker. */
  let orphanedProfile: string | undefined;
  let extraApi: RunningApi;
  let dataDir: string;
  let site: http.Server;
  let origin: string;
  /** When a browser (not the crawler) asked for the home page. */
  const browserVisits: number[] = [];

  const browserWorker = () => childProcesses(service.pid).find((c) => c.workerKind === 'browser');

  /** Triggers a live audit of the site and waits until the browser worker `workerPid` renders it in Chromium. */
  async function renderUnderWay(workerPid: number): Promise<ChromiumProc[]> {
    const visits = browserVisits.length;
    const account = await newAccount('pro');
    const accepted = await api('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain: origin },
      baseUrl: extraApi.url,
    });
    assert.equal(accepted.status, 202, accepted.text);
    auditIds.push(accepted.body.audit_id);
    await until(
      async () => browserVisits.length > visits || (await pause(200)),
      240_000,
      `the browser worker to render the page\n${service.output().slice(-3000)}`,
    );
    const procs = serviceChromiums(marker);
    for (const p of procs) seen.set(p.pid, p);
    assert.ok(
      procs.some((p) => isDescendantOf(p.pid, workerPid)),
      `no Chromium under the browser worker ${workerPid}: ${JSON.stringify(procs)}`,
    );
    return procs;
  }

  /** Waits up to `boundMs` for every process of `procs` to be gone; what is left says what leaked. */
  async function leftAfter(procs: ChromiumProc[], boundMs: number): Promise<{ left: ChromiumProc[]; ms: number }> {
    const started = Date.now();
    while (stillRunning(procs).length > 0 && Date.now() < started + boundMs) await pause(100);
    return { left: stillRunning(procs), ms: Date.now() - started };
  }

  const profileOf = (procs: ChromiumProc[]) => {
    const dirs = new Set(procs.flatMap((p) => /--user-data-dir=(\S+)/.exec(p.command)?.[1] ?? []));
    assert.equal(dirs.size, 1, `one browser: ${procs.map(label).join('\n')}`);
    return [...dirs][0];
  };

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    const stack = await getStack();
    // The crawler gets the image at once; a browser never does, so the render lasts until
    // Lighthouse's 30 s wait for the load event ends.
    site = http.createServer((req, res) => {
      const crawler = /DomainAuditBot/.test(req.headers['user-agent'] ?? '');
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
      if (req.url === '/stalls.png') {
        if (crawler) res.writeHead(404).end();
        return;
      }
      if (req.url !== '/') return void res.writeHead(404, { 'content-type': 'text/html' }).end('<title>No</title>');
      if (!crawler) browserVisits.push(Date.now());
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          '<!doctype html><html lang="en"><head><title>Stalling page</title></head><body><h1>Stalling page</h1>' +
            '<p>Its image never arrives in a browser.</p><img src="/stalls.png" width="10" height="10" alt="never"></body></html>',
        );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    extraApi = await startExtraApi({
      config: { ...stack.config, browserStage: { taskQueue, timeoutMs: 10 * 60_000 } },
    });

    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-isolation-test-'));
    const [markerName, markerValue] = marker.split('=');
    service = await startServiceProcess({
      DATABASE_URL: stack.config.databaseUrl!,
      TEMPORAL_ADDRESS: stack.temporalAddress,
      DATA_DIR: dataDir,
      SERVICE_ROLES: 'browser',
      BROWSER_TASK_QUEUE: taskQueue,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      [markerName]: markerValue,
    });
    await until(
      async () => /workers running \(browser\)/.test(service.output()) || (await pause(200)),
      240_000,
      `the browser worker to run\n${service.output()}`,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${service.output()}`);
    });
  });

  after(async () => {
    if (service && isAlive(service.pid)) service.signalGroup('SIGKILL');
    // A failed run must not leave its Chromiums behind on the machine.
    for (const p of stillRunning([...seen.values()])) process.kill(p.pid, 'SIGKILL');
    const stack = await getStack();
    for (const auditId of auditIds)
      await stack.service.temporal.client.workflow
        .getHandle(auditWorkflowId(auditId))
        .terminate('test over')
        .catch(() => undefined);
    await stopExtraApi(extraApi);
    await new Promise((resolve) => {
      site?.closeAllConnections();
      site?.close(resolve);
    });
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('Chromium counted after SIGKILL of its worker: none left', async () => {
    const worker = await until(() => browserWorker(), 30_000, 'the browser worker process');
    const procs = await renderUnderWay(worker.pid);
    assert.ok(
      procs.some((p) => /--type=renderer/.test(p.command)),
      `the browser and its renderers: ${procs.map(label).join('\n')}`,
    );
    orphanedProfile = profileOf(procs);
    process.kill(worker.pid, 'SIGKILL');
    killedWorker = worker.pid;
    const { left, ms } = await leftAfter(procs, 10_000);
    console.log(
      `      ${procs.length} Chromium processes before SIGKILL of the worker, ${left.length} left after ${ms} ms`,
    );
    assert.deepEqual(left.map(label), []);
  });

  it('Chromium counted after SIGTERM to the process group: none left, closed by the worker itself', async () => {
    // The supervisor has started another browser worker meanwhile.
    const worker = await until(
      () => {
        const found = browserWorker();
        const runs = service.output().match(/"msg":"browser worker running"/g)?.length ?? 0;
        return found && found.pid !== killedWorker && runs >= 2 ? found : false;
      },
      60_000,
      'the restarted browser worker',
    );
    const procs = await renderUnderWay(worker.pid);
    const profile = profileOf(procs);
    // The next Chromium started on the machine removed the profile the killed worker could not.
    assert.equal(fs.existsSync(orphanedProfile!), false, `${orphanedProfile} is left`);
    const signalled = Date.now();
    service.signalGroup('SIGTERM');
    assert.equal(await service.exited, 0, service.output());
    const stoppedInMs = Date.now() - signalled;
    const { left } = await leftAfter(procs, 10_000);
    console.log(
      `      ${procs.length} Chromium processes before SIGTERM, ${left.length} left; npm start exited in ${stoppedInMs} ms`,
    );
    assert.deepEqual(left.map(label), []);
    // Closed by the worker, not killed with it: well within the 30 s the supervisor waits before
    // SIGKILL (the render under way would have taken that long), and its profile removed.
    assert.ok(stoppedInMs < 20_000, `${stoppedInMs} ms`);
    assert.equal(fs.existsSync(profile), false, `${profile} is left`);
  });
});
