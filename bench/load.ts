import { Pool } from 'undici';

/**
 * Closed-loop HTTP load from its own process (so it does not share the server's event loop):
 * `tsx bench/load.ts <url> <authorization|-> <connections> <seconds>` prints one JSON line.
 */
async function main(): Promise<void> {
  const [url, authorization, connectionsArg, secondsArg] = process.argv.slice(2);
  const target = new URL(url);
  const connections = Number(connectionsArg);
  const durationMs = Number(secondsArg) * 1000;
  const pool = new Pool(target.origin, { connections, pipelining: 1 });
  const headers: Record<string, string> = authorization === '-' ? {} : { authorization };
  const latencies: number[] = [];
  let errors = 0;
  const warmupEnd = Date.now() + 500;
  const end = warmupEnd + durationMs;
  let measuredStart = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const started = performance.now();
      const response = await pool.request({ path: target.pathname + target.search, method: 'GET', headers });
      await response.body.dump();
      const elapsed = performance.now() - started;
      if (Date.now() < warmupEnd) continue;
      if (!measuredStart) measuredStart = Date.now();
      if (response.statusCode !== 200) errors++;
      latencies.push(elapsed);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const seconds = (Date.now() - measuredStart) / 1000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  console.log(
    JSON.stringify({
      requests: latencies.length,
      errors,
      rps: latencies.length / seconds,
      p50: pick(0.5),
      p99: pick(0.99),
    }),
  );
  await pool.close();
}

void main();
