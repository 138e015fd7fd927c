import path from 'node:path';

/**
 * How `npm test` splits its files over processes that run at once, each with its own Temporal dev
 * server and Postgres (test/run.ts). Most of the suite's time is waiting — Lighthouse's quiet windows,
 * timers, retries, child processes starting — so two shards on two cores take little more than half
 * the time of one. Files are dealt longest first to the shard with the least so far; a file's length
 * is its measured seconds below (a quiet run of 2026-11-28, one process) or its folder's typical one.
 */
const MEASURED_SECONDS: Record<string, number> = {
  'integration/render-all.test.ts': 160,
  'unit/browser-render.test.ts': 143,
  'integration/report-storage-s3.test.ts': 10, // 131 on a machine's first run, which builds versitygw
  'integration/browser-stage.test.ts': 125,
  'integration/app-shell-render.test.ts': 85,
  'unit/lighthouse-process.test.ts': 64,
  'integration/browser-isolation.test.ts': 60,
  'browser/webhooks.test.ts': 59,
  'integration/admin-cli.test.ts': 54,
  'integration/browser-queue.test.ts': 51,
  'integration/supervision.test.ts': 43,
  'integration/bad-input-from-outside.test.ts': 42,
  'integration/webhooks.test.ts': 40,
  'integration/tracing.test.ts': 39,
  'browser/audit-views.test.ts': 38,
  'browser/sites.test.ts': 38,
  'browser/dashboard-keys.test.ts': 33,
  'integration/observability.test.ts': 32,
  'integration/graceful-shutdown.test.ts': 31,
  'integration/cluster.test.ts': 28,
  'browser/audits.test.ts': 28,
  'integration/worker-restart.test.ts': 25,
  'integration/durable-crawl.test.ts': 23,
  'integration/compiled-start.test.ts': 21,
  'browser/api-docs.test.ts': 21,
  'browser/share.test.ts': 20,
};

const TYPICAL_SECONDS: Record<string, number> = { unit: 0.5, workflows: 4, integration: 5, browser: 10 };

/** The seconds a test file is expected to take, by its path under test/. */
export function expectedSeconds(file: string, testRoot: string): number {
  const relative = path.relative(testRoot, file).split(path.sep).join('/');
  return MEASURED_SECONDS[relative] ?? TYPICAL_SECONDS[relative.split('/')[0]!] ?? 5;
}

/** The files of each of `count` shards, each in the suite's own order; every file in exactly one. */
export function dealShards(files: string[], count: number, seconds: (file: string) => number): string[][] {
  const shards = Array.from({ length: count }, () => ({ files: new Set<string>(), seconds: 0 }));
  const longestFirst = [...files].sort((a, b) => seconds(b) - seconds(a) || files.indexOf(a) - files.indexOf(b));
  for (const file of longestFirst) {
    const lightest = shards.reduce((least, shard) => (shard.seconds < least.seconds ? shard : least));
    lightest.files.add(file);
    lightest.seconds += seconds(file);
  }
  return shards.map((shard) => files.filter((file) => shard.files.has(file)));
}
