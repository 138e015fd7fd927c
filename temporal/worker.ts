import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { TemporalSecurity } from '../src/config';
import { securityOptions } from './connection';
import { boundRefusedDatumRetries } from './refused-datum-retries';
import { tracingWorkerOptions, tracingWorkflowModules } from '../src/observability/temporal-tracing';

/**
 * Bundles the workflow code once; workers created afterwards reuse the bundle (fast start). With
 * `tracing`, the bundle carries the OpenTelemetry workflow interceptors (for workers that export traces).
 */
export async function bundleWorkflows(opts: { tracing?: boolean } = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../workflows'),
    workflowInterceptorModules: tracingWorkflowModules(opts.tracing ?? false),
    logger: {
      info: () => undefined,
      warn: () => undefined,
      debug: () => undefined,
      trace: () => undefined,
      error: console.error,
      log: () => undefined,
    },
  });
}

export interface TemporalWorkerOptions {
  address: string;
  namespace: string;
  /** TLS / API key of the connection (plain gRPC when unset). */
  security?: TemporalSecurity;
  taskQueue: string;
  activities: object;
  /** After shutdown() running activities get this long to finish before they are cancelled (handed back). */
  shutdownGraceMs?: number;
  /** Activities run at once by this worker (default: the SDK's). */
  maxConcurrentActivities?: number;
  /** The bundle itself, or `{ codePath }` of one written by processes/bundle-main.ts. */
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
}

export interface RunningWorker {
  worker: Worker;
  /** Settles when the worker has stopped (after shutdown() or a fatal error). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export async function startTemporalWorker(opts: TemporalWorkerOptions): Promise<RunningWorker> {
  const connection = await NativeConnection.connect({ address: opts.address, ...securityOptions(opts.security) });
  const tracing = tracingWorkerOptions();
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue,
    workflowBundle: opts.workflowBundle,
    activities: opts.activities,
    // The activity's span (tracing on) around everything else.
    interceptors: { activity: [...(tracing?.activity ?? []), boundRefusedDatumRetries] },
    ...(tracing ? { sinks: tracing.sinks } : {}),
    ...(opts.maxConcurrentActivities ? { maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities } : {}),
    // Bounded sticky cache: the default grows with the machine's memory; evicted workflows are
    // simply replayed from history when they next get a task.
    maxCachedWorkflows: 250,
    // A killed worker is noticed fast: heartbeats are sent as often as activities beat (every few
    // seconds, well inside the 10 s heartbeat time-out), and a workflow task waiting on a dead
    // worker's sticky queue moves to the shared queue after 5 s instead of 10 s.
    maxHeartbeatThrottleInterval: '2 seconds',
    stickyQueueScheduleToStartTimeout: '5 seconds',
    // Graceful stop: no more polls, running activities may finish for this long, then they are
    // cancelled and fail as WORKER_SHUTDOWN, so the server retries them on another worker at once
    // instead of after the heartbeat time-out.
    shutdownGraceTime: opts.shutdownGraceMs ?? 0,
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
