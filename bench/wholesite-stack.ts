import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../src/db/knex';
import { freePort } from '../src/db/embedded';
import { startTestInfrastructure, type TestInfrastructure } from '../test/support/infrastructure';
import { childProcesses, isAlive } from '../test/support/processes';
import { CpuCap } from './cpu-cap';

/**
 * The service of `npm run bench:wholesite` as `npm start` runs it, compiled: dist/processes/main.js in a
 * process group of its own (the API and the supervisor in it, the audit and report workers forked by it), on
 * a fresh Temporal dev server (state in a file, as under `npm start`) and Postgres database started
 * here. The bench keeps a small connection pool of its own to that database (accounts, status polls,
 * table sizes). With more than one audit worker, each further one is a machine of its own as
 * docs/operations.md scales out: another `npm start` with SERVICE_ROLES=worker on the same Temporal
 * and Postgres.
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
  /** The worker-only machines beyond the first (SERVICE_ROLES=worker), each its own process group. */
  private workerMachines: ChildProcess[] = [];

  /** The CPU limits put on the audit workers (`workerCpu`), removed when they stop. */
  private caps: CpuCap[] = [];

  /** `workerCpu`: each audit worker process limited to that many cores (bench/cpu-cap.ts); unlimited when absent. */
  constructor(
    private readonly log: (line: string) => void,
    private auditWorkers = 1,
    private readonly workerCpu?: number,
  ) {}

  /** How many audit worker processes the service runs now. */
  get auditWorkerCount(): number {
    return this.auditWorkers;
  }

  /** The root pid of every machine: the API's first (its tree holds the first audit worker), then the worker-only ones. */
  get machinePids(): number[] {
    return [this.pid, ...this.workerMachines.map((machine) => machine.pid!)];
  }

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
   * so one size's figures do not carry what an earlier size left in a worker's heap; with
   * `auditWorkers`, that many audit workers from now on.
   */
  async restartService(auditWorkers = this.auditWorkers): Promise<void> {
    await this.stopService();
    this.auditWorkers = auditWorkers;
    await this.startService();
  }

  /** `npm start`'s own script (src/setup/start.cjs): dist/ built when older than the sources, then run compiled. */
  private async startService(): Promise<void> {
    const child = this.spawnMachine({ PORT: new URL(this.url).port, SERVICE_ROLES: 'api,worker,reports' });
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
    for (let i = 1; i < this.auditWorkers; i++) this.workerMachines.push(await this.startWorkerMachine());
    const workers = this.machinePids.flatMap((pid) => childProcesses(pid));
    if (this.workerCpu !== undefined)
      for (const [i, worker] of workers.filter((w) => w.workerKind === 'audits').entries()) {
        const cap = CpuCap.create(`bench-wholesite-audits-${i + 1}`, this.workerCpu);
        this.caps.push(cap);
        cap.hold(worker.pid);
      }
    const capped = this.workerCpu === undefined ? '' : ` (each audit worker limited to ${this.workerCpu} of a core)`;
    this.log(
      `service up: API pid ${this.pid}, workers ${workers.map((w) => `${w.workerKind ?? 'other'} ${w.pid}`).join(', ')}${capped}`,
    );
  }

  /** One more machine running only the audit worker; resolves once it polls. */
  private async startWorkerMachine(): Promise<ChildProcess> {
    // Info level: "workers running" is how it says it polls.
    const child = this.spawnMachine({ PORT: String(await freePort()), SERVICE_ROLES: 'worker', LOG_LEVEL: 'info' });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const deadline = Date.now() + 300_000;
    while (!output.includes('workers running')) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`a worker machine exited while starting:\n${output}`);
      if (Date.now() > deadline) throw new Error(`a worker machine was not polling within 5 minutes:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    child.stdout!.removeListener('data', keep);
    child.stderr!.removeListener('data', keep);
    // Drained, not kept: at info level a busy worker logs every step.
    child.stdout!.resume();
    child.stderr!.resume();
    return child;
  }

  /** start.cjs in a process group of its own, on this stack's Temporal, Postgres and data directory. */
  private spawnMachine(own: NodeJS.ProcessEnv): ChildProcess {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS,
      HOST: '127.0.0.1',
      DATA_DIR: this.dataDir,
      // No browser worker: the stage is off, and its process would only sit idle.
      BROWSER_STAGE: 'off',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.0/8',
      PAGE_BUDGETS,
      LOG_LEVEL: 'warn',
      METRICS_PORT: '',
      ...own,
    };
    const root = path.join(__dirname, '..');
    return spawn(process.execPath, [path.join(root, 'src', 'setup', 'start.cjs')], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  }

  /** SIGTERM to every machine's process group (SIGKILL after 45 s), and anything of their trees still there. */
  private async stopService(): Promise<void> {
    const tree = this.machinePids.filter((pid) => pid > 0).flatMap((pid) => descendants(pid));
    const machines = [...(this.child ? [this.child] : []), ...this.workerMachines];
    this.workerMachines = [];
    await Promise.all(
      machines.map(async (machine) => {
        if (machine.exitCode !== null || machine.signalCode !== null) return;
        const exited = new Promise((resolve) => machine.once('exit', resolve));
        signalGroup(machine.pid!, 'SIGTERM');
        const timeout = setTimeout(() => signalGroup(machine.pid!, 'SIGKILL'), 45_000);
        await exited;
        clearTimeout(timeout);
      }),
    );
    // An orphaned worker goes too.
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    for (const cap of this.caps) cap.remove();
    this.caps = [];
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

  /** Synchronous last resort on exit: SIGKILL to every machine's process group. */
  killNow(): void {
    for (const machine of [...(this.child ? [this.child] : []), ...this.workerMachines])
      if (machine.exitCode === null && machine.signalCode === null) signalGroup(machine.pid!, 'SIGKILL');
  }

  private alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }
}

/** A signal to a process group, which may be gone already. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
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
