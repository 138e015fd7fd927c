import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '../../src/db/embedded';

const root = path.join(__dirname, '..', '..');

/** A separate API process (`SERVICE_ROLES=api npm start`) on the run's database and Temporal. */
export async function startApiProcess(env: Record<string, string>): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'processes', 'main.ts')], {
    cwd: root,
    env: { ...process.env, ...env, SERVICE_ROLES: 'api', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API process exited: ${output}`);
    const healthy = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`API process did not become healthy: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A running `npm start` (processes/main.ts), in its own process group as a terminal would run it. */
export interface ServiceProcess {
  pid: number;
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Settles with its exit code once it has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` to its whole process group, as Ctrl-C (SIGINT) or `kill -TERM -<pgid>` do. */
  signalGroup(signal: NodeJS.Signals): void;
}

/** Starts `npm start` with `env` on free API and Temporal ports (the dev server's UI port + 1000 free too). */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const temporalPort = await freePortWithUi();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'processes', 'main.ts')], {
    cwd: root,
    env: { ...process.env, TEMPORAL_ADDRESS: '', PORT: String(port), TEMPORAL_PORT: String(temporalPort), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    exited,
    signalGroup: (signal) => process.kill(-child.pid!, signal),
  };
}

async function freePortWithUi(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 1000 > 65535) continue;
    const uiFree = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port + 1000, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (uiFree) return port;
  }
}

/** A live child process of `parentPid` (Linux /proc): its command line and WORKER_KIND, if any. */
export interface ChildInfo {
  pid: number;
  command: string;
  workerKind: string | undefined;
}

export function childProcesses(parentPid: number): ChildInfo[] {
  const children: ChildInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; the command name (field 2) may contain spaces.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== parentPid || state === 'Z') continue;
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      const workerKind = environ.find((v) => v.startsWith('WORKER_KIND='))?.slice('WORKER_KIND='.length);
      children.push({ pid: Number(entry), command, workerKind });
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/** Whether a process with this pid exists (and is not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
