import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';
import { startTestInfrastructure, type TestInfrastructure } from './support/infrastructure';
import { ensureChromium } from './support/chromium';
import { ensurePdftoppm } from './support/poppler';

/**
 * `npm test`: type check and lint, then unit tests, then workflow tests (test/workflows: the workflows on a
 * dev server of their own with stubbed activities, no Postgres), then integration tests against a
 * real Temporal dev server and a real Postgres that this script starts (and removes) itself, then browser
 * tests (test/browser: the dashboard in a real headless Chromium) against the same stack.
 * Arguments narrow the run to some test files; `--grep <text>` filters by title.
 */
async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const grepAt = args.indexOf('--grep');
  const grep = grepAt >= 0 ? args.splice(grepAt, 2)[1] : undefined;
  const root = path.join(__dirname);
  const files = args.length
    ? args.map((f) => path.resolve(f))
    : [
        ...listTests(path.join(root, 'unit')),
        ...listTests(path.join(root, 'workflows')),
        ...listTests(path.join(root, 'integration')),
        ...listTests(path.join(root, 'browser')),
      ];

  if (!args.length) {
    console.log('typecheck: tsc --noEmit');
    const tsc = spawnSync(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '--noEmit', '-p', path.join(root, '..')],
      { stdio: 'inherit' },
    );
    if (tsc.status !== 0) {
      console.error('typecheck failed');
      return 1;
    }
    console.log('lint: eslint + prettier --check');
    const lint = spawnSync('npm', ['run', '--silent', 'lint'], { cwd: path.join(root, '..'), stdio: 'inherit' });
    if (lint.status !== 0) {
      console.error('lint failed (npm run format fixes the formatting)');
      return 1;
    }
  }

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
