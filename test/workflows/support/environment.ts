import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { ensureTemporalCli } from '../../../src/setup/temporal-cli';
import { boundRefusedDatumRetries } from '../../../temporal/refused-datum-retries';
import { SEARCH_ATTRIBUTE_KEYS } from '../../../workflows/contracts';
import { workflowBundle } from '../../support/stack';
import type { WorkflowActivities } from './activity-stubs';
import { installQuietRuntime } from './runtime';

let environment: Promise<TestWorkflowEnvironment> | null = null;

/**
 * The local Temporal dev server the workflow tests of a run share: the project's own CLI (found or
 * built as `npm start` does), with the search attributes the workflows set. No Postgres: every
 * activity is a stub. The time-skipping server cannot be downloaded here, so tests give the
 * workflows short delays through their inputs (retry delays, redelivery window) instead.
 */
export function workflowTestEnvironment(): Promise<TestWorkflowEnvironment> {
  environment ??= (async () => {
    installQuietRuntime();
    const cliPath = await ensureTemporalCli((line) => console.log(`  [setup] ${line}`));
    return TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: cliPath },
        ip: '127.0.0.1',
        searchAttributes: [...SEARCH_ATTRIBUTE_KEYS],
      },
    });
  })();
  return environment;
}

/** Stops the shared dev server, if a test started it. */
export async function stopWorkflowTestEnvironment(): Promise<void> {
  if (!environment) return;
  const started = environment;
  environment = null;
  await (await started).teardown();
}

/**
 * Runs `body` while a worker polls a task queue of its own (so tests never pick up each other's
 * tasks) with the real workflow bundle and the given activity stubs; returns what `body` returns.
 */
export async function withWorker<T>(
  activities: WorkflowActivities,
  body: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const env = await workflowTestEnvironment();
  const taskQueue = `workflow-test-${randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
    // As the service's workers run them (temporal/worker.ts).
    interceptors: { activity: [boundRefusedDatumRetries] },
  });
  return worker.runUntil(() => body(taskQueue));
}
