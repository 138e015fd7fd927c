import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { freePort } from '../../src/db/embedded';
import { auditWorkflowId } from '../../workflows/contracts';
import { childProcesses } from './processes';

const root = path.join(__dirname, '..', '..');

/** One machine of a cluster: `npm start` with some SERVICE_ROLES against the run's Postgres and Temporal. */
export interface RoleProcess {
  pid: number;
  /** http://127.0.0.1:<port> (served only with the api role) */
  url: string;
  output(): string;
  exited: Promise<number | null>;
  /** The pid of its audit worker child process (the `worker` role), once it runs. */
  auditWorkerPid(): number | undefined;
  signal(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

/**
 * Starts processes/main.ts with `roles` and `env` (DATABASE_URL and TEMPORAL_ADDRESS point at the
 * shared servers, so it starts no embedded ones) and waits until its roles run: the API healthy,
 * the workers polling.
 */
export async function startRoleProcess(roles: string, env: Record<string, string>): Promise<RoleProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'processes', 'main.ts')], {
    cwd: root,
    env: { ...process.env, ...env, SERVICE_ROLES: roles, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const running: RoleProcess = {
    pid: child.pid!,
    url,
    output: () => output,
    exited,
    auditWorkerPid: () => childProcesses(child.pid!).find((c) => c.workerKind === 'audits')?.pid,
    signal: (signal) => child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
  // Generous: each worker process bundles the workflow code first (webpack), slow on a busy machine.
  const deadline = Date.now() + 240_000;
  const ready = async () => {
    if (roles.split(',').includes('api')) {
      const healthy = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) return false;
    }
    return !roles.split(',').includes('worker') || output.includes('workers running');
  };
  while (!(await ready())) {
    if (child.exitCode !== null) throw new Error(`npm start (${roles}) exited:\n${output}`);
    if (Date.now() > deadline) {
      await running.stop();
      throw new Error(`npm start (${roles}) did not get ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return running;
}

/**
 * Every start of the audit's runAudit activity: which worker (identity `pid@host`) took which attempt,
 * and why the previous ended. Read once the workflow has finished: an activity's started event enters
 * the history only with its completion, which may come after the audit row already says completed.
 */
export async function runAuditStarts(
  client: Client,
  auditId: string,
): Promise<Array<{ identity: string; attempt: number; lastFailure: string | undefined; at: number }>> {
  return activityStarts(client, auditWorkflowId(auditId), 'runAudit');
}

/** Every start of a workflow's `activityType` activities (after the workflow ended): where, which attempt, after what failure. */
export async function activityStarts(
  client: Client,
  workflowId: string,
  activityType: string,
): Promise<Array<{ identity: string; attempt: number; lastFailure: string | undefined; at: number }>> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.result();
  const history = await handle.fetchHistory();
  const scheduled = new Map<string, string>();
  const starts = [];
  for (const event of history.events ?? []) {
    const schedule = event.activityTaskScheduledEventAttributes;
    if (schedule) scheduled.set(String(event.eventId), schedule.activityType?.name ?? '');
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === activityType) {
      starts.push({
        identity: started.identity ?? '',
        attempt: started.attempt ?? 0,
        lastFailure: started.lastFailure?.message ?? undefined,
        at: Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6),
      });
    }
  }
  return starts;
}

/** The pid in a worker identity `pid@host`. */
export function pidOfIdentity(identity: string): number {
  return Number(identity.split('@')[0]);
}
