import { execFile } from 'node:child_process';
import path from 'node:path';
import { benchWorkspace, percentiles, startBenchStack } from './bench-stack';

/**
 * `npm run bench:cli`: wall time of the customer CLI for a test-mode audit with --wait (target
 * < 1.5 s, process start included), on a fresh stack as `npm start` runs it (workers in their own
 * processes). Each run is a new process auditing a new domain, so every one triggers, waits for and
 * reports a fresh audit. Measured in the same run, as baselines: a bare `node -e ''` start, and the
 * CLI's own start (`--help`, no request), so what the audit adds is plain; and `npm run --silent cli`
 * (the test contract's way, npm's own start included). RUNS runs each after WARMUP unmeasured ones.
 */
const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'src', 'cli', 'bin.cjs');
const RUNS = Number(process.env.BENCH_CLI_RUNS || 15);
const WARMUP = 3;
const TARGET_MS = 1500;

/** Wall time of one process from spawn to exit; it must exit 0. */
function timed(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: ROOT, env }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${path.basename(file)} ${args.join(' ')}: ${err.message}\n${stderr}`));
      else resolve(performance.now() - started);
    });
  });
}

async function series(label: string, run: (i: number) => Promise<number>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await run(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await run(i));
  const p = percentiles(samples);
  const max = Math.max(...samples);
  console.log(
    `${label.padEnd(52)} p50 ${p.p50.toFixed(0).padStart(5)} ms  p95 ${p.p95.toFixed(0).padStart(5)} ms  max ${max.toFixed(0).padStart(5)} ms`,
  );
  return p.p50;
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  try {
    const ws = await benchWorkspace(stack.db);
    const key = ws.headers.authorization.replace(/^Bearer /, '');
    // As in CI: no terminal, CI set (no progress line either way).
    const env = { ...process.env, AUDIT_API_URL: `${stack.api.url}/v1`, AUDIT_API_KEY: key, CI: 'true' };
    const node = process.execPath;
    let n = 0;
    const domain = () => `https://bench-cli-${Date.now().toString(36)}-${n++}.example.com`;
    console.log(`customer CLI, test-mode audit with --wait; ${RUNS} runs each after ${WARMUP} warm-up runs`);
    const bare = await series("baseline: node -e ''", () => timed(node, ['-e', ''], env));
    const help = await series('baseline: CLI start, no request (--help)', () => timed(node, [BIN, '--help'], env));
    const wait = await series('CLI audit <domain> --wait (node src/cli/bin.cjs)', () =>
      timed(node, [BIN, 'audit', domain(), '--wait'], env),
    );
    const sarif = await series('CLI audit <domain> --format sarif --fail-on-new high', () =>
      timed(node, [BIN, 'audit', domain(), '--format', 'sarif', '--fail-on-new', 'high'], env),
    );
    const npm = await series('npm run --silent cli -- audit <domain> --wait', () =>
      timed('npm', ['run', '--silent', 'cli', '--', 'audit', domain(), '--wait'], env),
    );
    console.log(
      `\n--wait p50 ${wait.toFixed(0)} ms (target < ${TARGET_MS} ms: ${wait < TARGET_MS ? 'met' : 'NOT met'}); ` +
        `${(wait / bare).toFixed(1)}× a bare node start (${bare.toFixed(0)} ms), ` +
        `CLI start ${help.toFixed(0)} ms, so trigger + wait + report ${(wait - help).toFixed(0)} ms; ` +
        `sarif with a gate ${sarif.toFixed(0)} ms; through npm run ${npm.toFixed(0)} ms (${(npm - wait).toFixed(0)} ms of npm).`,
    );
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
