import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../src/db/knex';
import { freePort } from '../src/db/embedded';
import { startTestInfrastructure, type TestInfrastructure } from '../test/support/infrastructure';
import { childProcesses, isAlive } from '../test/support/processes';

/**
 * The service of `npm run bench:wholesite` as `npm start` runs it, compiled: dist/processes/main.js in a
 * process group of its own (the API and the supervisor in it, the audit and report workers forked by it), on
 * a fresh Temporal dev server (state in a file, as under `npm start`) and Postgres database started
 * here. The bench keeps a small connection pool of its own to that database (accounts, status polls,
 * table sizes).
 */
export const PAGE_BUDGETS = 'free:100,pro:10000,team:100000,enterprise:1000000';

export class WholesiteStack {
  url = '';
  /** The pid of the service's main process: the API process, parent of the worker processes. */
  pid = 0;
  private database: Db | undefined;
  private output = '';
  private child: ChildProcess | undefined;
  private infra: Promise<TestInfrastructure> | undefined;
  private dataDir: string | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly log: (line: string) => void) {}

  /** Temporal, Postgres, then the service; resolves once /healthz says the API and both workers are up. */
  async start(): Promise<void> {
    this.infra = startTestInfrastructure(() => undefined, { temporalOnDisk: true });
    await this.infra;
    if (this.stopping) throw new Error('stopped while starting');
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wholesite-'));
    this.url = `http://127.0.0.1:${await freePort()}`;
    this.database = createDb(process.env.TEST_DATABASE_URL!, { max: 4 });
    await this.startService();
  }

  /**
   * The service stopped and started again on the same Temporal, Postgres and port: fresh processes,
   * so one size's figures do not carry what an earlier size left in a worker's heap.
   */
  async restartService(): Promise<void> {
    await this.stopService();
    await this.startService();
  }

  /** `npm start`'s own script (src/setup/start.cjs): dist/ built when older than the sources, then run compiled. */
  private async startService(): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      PORT: new URL(this.url).port,
      HOST: '127.0.0.1',
      DATA_DIR: this.dataDir,
      // No browser worker: the stage is off, and its process would only sit idle.
      SERVICE_ROLES: 'api,worker,reports',
      BROWSER_STAGE: 'off',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      PAGE_BUDGETS,
      LOG_LEVEL: 'warn',
      METRICS_PORT: '',
    };
    const root = path.join(__dirname, '..');
    const child = spawn(process.execPath, [path.join(root, 'src', 'setup', 'start.cjs')], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    this.pid = child.pid!;
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    await untilHealthy(
      this.url,
      () => this.alive(),
      () => this.output,
    );
    const workers = childProcesses(this.pid).map((c) => `${c.workerKind ?? 'other'} ${c.pid}`);
    this.log(`service up: API pid ${this.pid}, workers ${workers.join(', ')}`);
  }

  /** SIGTERM to the service's process group (SIGKILL after 45 s), and anything of its tree still there. */
  private async stopService(): Promise<void> {
    const tree = this.pid ? descendants(this.pid) : [];
    if (this.child && this.alive()) {
      const exited = new Promise((resolve) => this.child!.once('exit', resolve));
      this.signalGroup('SIGTERM');
      const timeout = setTimeout(() => this.signalGroup('SIGKILL'), 45_000);
      await exited;
      clearTimeout(timeout);
    }
    // An orphaned worker goes too.
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }

  /** The bench's own pool on the service's database. */
  get db(): Db {
    if (!this.database) throw new Error('the stack is not started');
    return this.database;
  }

  /** The service's last lines of output (it logs warnings and errors only). */
  tail(): string {
    return this.output;
  }

  /** The service (stopService), then Temporal and Postgres. Safe at any point. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      await this.stopService();
      await this.database?.destroy().catch(() => undefined);
      // Started or still starting: Temporal and Postgres are stopped once they are up.
      await (await this.infra?.catch(() => undefined))?.stop();
      if (this.dataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
    })());
  }

  /** Synchronous last resort on exit: SIGKILL to the service's process group. */
  killNow(): void {
    if (this.child && this.alive()) this.signalGroup('SIGKILL');
  }

  private alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // the group is gone
    }
  }
}

/** /healthz answers 200 once the API serves and every worker it supervises is up. */
async function untilHealthy(url: string, alive: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (!alive()) throw new Error(`the service exited while starting:\n${output()}`);
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`the service was not healthy within 5 minutes:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Every live descendant of `pid` (Linux /proc). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of childProcesses(queue.shift()!)) {
      found.push(child.pid);
      queue.push(child.pid);
    }
  }
  return found;
}
