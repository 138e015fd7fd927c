import { spawn } from 'node:child_process';
import readline from 'node:readline';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Mocha from 'mocha';
import { startTestInfrastructure, type TestInfrastructure } from './support/infrastructure';
import { ensureChromium } from './support/chromium';
import { ensurePdftoppm } from './support/poppler';
import { dealShards, expectedSeconds } from './support/shards';
import { ensureTemporalCli } from '../src/setup/temporal-cli';

/**
 * `npm test`: type check and lint, unit tests, workflow tests (test/workflows: the workflows on a dev
 * server of their own with stubbed activities, no Postgres), integration tests against a real Temporal
 * dev server and a real Postgres that this script starts (and removes) itself, and browser tests
 * (test/browser: the dashboard in a real headless Chromium). By default in two lanes at once: the
 * checks lane (type check, lint, unit, workflow and browser tests, the last on a stack of its own) at a
 * lower CPU priority, beside the stack lane (the integration tests), which keeps the CPU whenever it
 * wants it (its timing-sensitive tests are the ones that failed under load).
 * With TEST_SHARDS=2 the whole suite runs instead in two equal processes at once (test/support/shards.ts),
 * each with a stack of its own. Arguments narrow the run to some test files, in one process; `--grep
 * <text>` filters by title; `--shard i/n` runs the i-th of n shards; `--lane checks|stack` one lane.
 */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const grepAt = args.indexOf('--grep');
  const grep = grepAt >= 0 ? args.splice(grepAt, 2)[1] : undefined;
  const shardAt = args.indexOf('--shard');
  const shard = shardAt >= 0 ? args.splice(shardAt, 2)[1] : undefined;
  const laneAt = args.indexOf('--lane');
  const lane = laneAt >= 0 ? args.splice(laneAt, 2)[1] : undefined;
  const root = path.join(__dirname);
  const unit = listTests(path.join(root, 'unit'));
  const workflows = listTests(path.join(root, 'workflows'));
  const integration = listTests(path.join(root, 'integration'));
  const browser = listTests(path.join(root, 'browser'));
  const lanes: Record<string, string[]> = { checks: [...unit, ...workflows, ...browser], stack: integration };
  const suite = [...unit, ...workflows, ...integration, ...browser];
  if (lane !== undefined && !lanes[lane]) throw new Error(`--lane takes checks or stack, got "${lane}"`);
  const files = args.length
    ? args.map((f) => path.resolve(f))
    : shard
      ? shardFiles(suite, shard, root)
      : lane
        ? lanes[lane]!
        : suite;

  if (!args.length && !shard && !lane) {
    const shards = Number(process.env.TEST_SHARDS || 1);
    if (shards <= 1) return runLanes(grep);
    if (!(await typecheckAndLint(path.join(root, '..')))) return 1;
    return runShards(shards, grep);
  }
  if (lane === 'checks' && !(await typecheckAndLint(path.join(root, '..')))) return 1;

  let infra: TestInfrastructure | null = null;
  const runsBrowserTests = files.some((f) => f.includes(`${path.sep}browser${path.sep}`));
  if (runsBrowserTests || files.some((f) => f.includes(`${path.sep}integration${path.sep}`))) {
    ensurePdftoppm((line) => console.log(`  [setup] ${line}`));
    // Integration tests run the browser stage too.
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    infra = await startTestInfrastructure((line) => console.log(`  [setup] ${line}`));
  }
  const runsWorkflowTests = files.some((f) => f.includes(`${path.sep}workflows${path.sep}`));
  const stopSharedServers = async () => {
    if (runsWorkflowTests) await stopWorkflowTestServer();
    if (runsBrowserTests) await stopSharedBrowser();
    await stopSharedStack();
  };
  const mocha = new Mocha({ timeout: 30_000, reporter: 'spec', grep, rootHooks: { afterAll: stopSharedServers } });
  for (const file of files) mocha.addFile(file);
  try {
    await mocha.loadFilesAsync();
    const { passed, failed, pending } = await new Promise<{ passed: number; failed: number; pending: number }>(
      (resolve) => {
        const runner = mocha.run();
        runner.on('end', () =>
          resolve({
            passed: runner.stats?.passes ?? 0,
            failed: runner.stats?.failures ?? 0,
            pending: runner.stats?.pending ?? 0,
          }),
        );
      },
    );
    console.log(`\ntests: ${passed} passed, ${failed} failed${pending ? `, ${pending} skipped` : ''}`);
    return failed === 0 && passed > 0 ? 0 : 1;
  } finally {
    await infra?.stop();
  }
}

/** Type check and lint side by side (two cores); false when either fails, having said which. */
async function typecheckAndLint(projectRoot: string): Promise<boolean> {
  console.log('typecheck (tsc --noEmit) and lint (eslint + prettier --check)');
  const tsc = exitCode(
    spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', projectRoot], {
      stdio: 'inherit',
    }),
  );
  const lint = exitCode(spawn('npm', ['run', '--silent', 'lint'], { cwd: projectRoot, stdio: 'inherit' }));
  const [typechecked, linted] = await Promise.all([tsc, lint]);
  if (typechecked !== 0) console.error('typecheck failed');
  if (linted !== 0) console.error('lint failed (npm run format fixes the formatting)');
  return typechecked === 0 && linted === 0;
}

function exitCode(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

/** The i-th of n shards (`i/n`) of the suite. */
function shardFiles(suite: string[], spec: string, root: string): string[] {
  const [index, count] = spec.split('/').map(Number) as [number, number];
  if (!(count >= 1 && index >= 1 && index <= count)) throw new Error(`--shard takes i/n, got "${spec}"`);
  return dealShards(suite, count, (file) => expectedSeconds(file, root))[index - 1]!;
}

/**
 * The suite in `count` processes at once, their lines prefixed with the shard's number. What they
 * would race for is set up here first: Debian's packages (one dpkg at a time) and the Temporal CLI.
 */
async function runShards(count: number, grep: string | undefined): Promise<number> {
  const log = (line: string) => console.log(`  [setup] ${line}`);
  ensurePdftoppm(log);
  ensureChromium(log);
  await ensureTemporalCli(log);
  const children = Array.from({ length: count }, (_, i) => ({
    label: String(i + 1),
    args: ['--shard', `${i + 1}/${count}`],
  }));
  return runChildren(children, grep, `${count} shards`);
}

/**
 * The two lanes at once. The checks lane runs at a lower CPU priority (its Chromium and tsc too),
 * so it takes the CPU the stack's tests leave idle. Debian's packages are installed here first (one
 * dpkg at a time); the Temporal CLI's build is shared behind its own lock.
 */
async function runLanes(grep: string | undefined): Promise<number> {
  const log = (line: string) => console.log(`  [setup] ${line}`);
  ensurePdftoppm(log);
  ensureChromium(log);
  const children = [
    { label: 'checks', args: ['--lane', 'checks'], niceness: CHECKS_LANE_NICENESS },
    { label: 'stack', args: ['--lane', 'stack'] },
  ];
  return runChildren(children, grep, 'two lanes');
}

/** Nice value of the checks lane: when both lanes want the CPU, the stack's gets about 90 % of it. */
const CHECKS_LANE_NICENESS = 10;

/** Runs this script once per child at once, their lines prefixed with the child's label; totals summed. */
async function runChildren(
  children: { label: string; args: string[]; niceness?: number }[],
  grep: string | undefined,
  described: string,
): Promise<number> {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  // Mocha's list of failures, per child, said again after every child is done: the lanes' lines
  // interleave, and a lane that ends early would otherwise leave its failures far above the end.
  const failures: string[] = [];
  const codes = await Promise.all(
    children.map(({ label, args, niceness }) => {
      const child = spawn(
        process.execPath,
        [...process.execArgv, __filename, ...args, ...(grep ? ['--grep', grep] : [])],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      if (niceness !== undefined && child.pid !== undefined) os.setPriority(child.pid, niceness);
      let inFailureList = false;
      readline.createInterface({ input: child.stderr! }).on('line', (line) => {
        console.log(`[${label}] ${line}`);
        if (/^(typecheck|lint) failed/.test(line)) failures.push(`[${label}] ${line}`);
      });
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        console.log(`[${label}] ${line}`);
        if (/^\s*\d+ failing$/.test(line)) inFailureList = true;
        const counted = /^tests: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/.exec(line);
        if (inFailureList && !counted) failures.push(`[${label}] ${line}`);
        if (!counted) return;
        inFailureList = false;
        totals.passed += Number(counted[1]);
        totals.failed += Number(counted[2]);
        totals.skipped += Number(counted[3] ?? 0);
      });
      return exitCode(child);
    }),
  );
  if (failures.length) console.log(`\nfailures, said again:\n${failures.join('\n')}`);
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  console.log(`\ntests (${described}): ${totals.passed} passed, ${totals.failed} failed${skipped}`);
  return codes.every((code) => code === 0) ? 0 : 1;
}

/** Stops the dev server the workflow tests share, if any test started it. */
async function stopWorkflowTestServer(): Promise<void> {
  // Loaded lazily, like the stack below: runs without workflow tests never load @temporalio/testing.
  const { stopWorkflowTestEnvironment } =
    require('./workflows/support/environment') as typeof import('./workflows/support/environment');
  await stopWorkflowTestEnvironment();
}

/** Closes the Chromium the browser tests share, if any test launched it. */
async function stopSharedBrowser(): Promise<void> {
  // Loaded lazily: runs without browser tests never load playwright-core.
  const { stopBrowser } = require('./support/browser') as typeof import('./support/browser');
  await stopBrowser();
}

/** Stops the service the integration tests share, if any test started it. */
async function stopSharedStack(): Promise<void> {
  if (!process.env.TEST_DATABASE_URL) return;
  // Loaded lazily: unit-only runs never touch the integration stack's modules.
  const { stopStack } = require('./support/stack') as typeof import('./support/stack');
  await stopStack();
}

function listTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => path.join(dir, f));
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
