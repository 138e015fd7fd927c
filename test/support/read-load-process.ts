// Child process of read-load.ts: reads the API in loops and reports every latency on stdout. It runs
// apart from the test process so that the harness's own heap (its collections) is not measured.
import { createInterface } from 'node:readline';

interface Options {
  baseUrl: string;
  key: string;
  paths: string[];
  loops: number;
  pauseMs: number;
}

const options = JSON.parse(process.argv[2]) as Options;
const latencies: number[] = [];
const failures: Array<{ path: string; status: number; text: string }> = [];
let measuring = false;
let reading = true;

async function read(path: string): Promise<number> {
  const t0 = performance.now();
  const response = await fetch(`${options.baseUrl}${path}`, { headers: { Authorization: `Bearer ${options.key}` } });
  const text = await response.text();
  const ms = performance.now() - t0;
  if (response.status !== 200) failures.push({ path, status: response.status, text });
  return ms;
}

async function loop(offset: number): Promise<void> {
  for (let i = offset; reading; i++) {
    const ms = await read(options.paths[i % options.paths.length]);
    if (measuring) latencies.push(ms);
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}

async function main(): Promise<void> {
  // One read of each path first: connections open, code paths warm.
  for (const path of options.paths) await read(path);
  const loops = Array.from({ length: options.loops }, (_, i) => loop(i));
  process.stdout.write('ready\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'measure') measuring = true;
    if (line === 'stop') break;
  }
  reading = false;
  await Promise.all(loops);
  process.stdout.write(`${JSON.stringify({ latencies, failures })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
