import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

/**
 * The viewers of `npm run bench:shares`, run in a worker thread that loads this module only: with
 * the whole service loaded, the viewers' thread had a heap of 150 MiB and collections of 20–30 ms,
 * which showed up in the times as if the server had taken them.
 */
export interface Load {
  url: string;
  headers: Record<string, string>;
  status: number;
  viewers: number;
  requestsPerViewer: number;
}

export interface Viewed {
  times: number[];
  bytes: number;
  firstTimes: number[];
}

const { viewers: VIEWERS, requestsPerViewer: REQUESTS_PER_VIEWER } = workerData as Load;
const WARM_UP = 20;
// Before the measured requests, this many per viewer at full load: a freshly started process
// promotes its start-up objects in its first collections (measured: scavenges of 38–56 ms in the
// first seconds, 1–4 ms after), which a server that has run for a while has long done.
const LOADED_WARM_UP_PER_VIEWER = 100;

async function view({ url, headers, status }: Load): Promise<Viewed> {
  const { get, close } = keptAliveGetter(url, headers);
  for (let i = 0; i < WARM_UP; i++) await get();
  // Each viewer's first request opens its connection (all 50 at once): timed apart, as the first
  // visit of a page is, so the figures below are those of viewers already connected.
  const firstTimes = await Promise.all(
    Array.from({ length: VIEWERS }, async () => {
      const started = process.hrtime.bigint();
      await get();
      return Number(process.hrtime.bigint() - started) / 1e6;
    }),
  );
  close();
  // The connected viewers are autocannon's: a load generator that parses answers with a fraction of
  // node:http's allocation, so the viewers' own garbage collection (measured: pauses of 12–21 ms in
  // their thread with node:http) stops showing up as the server's latency.
  await viewers(url, headers, status, VIEWERS * LOADED_WARM_UP_PER_VIEWER);
  parentPort!.postMessage({ measuring: true });
  const { times, bytes } = await viewers(url, headers, status, VIEWERS * REQUESTS_PER_VIEWER);
  return { times, bytes, firstTimes };
}

/** `amount` requests from VIEWERS connections, each asking again as soon as answered: every answer's time. */
async function viewers(url: string, headers: Record<string, string>, status: number, amount: number) {
  const times: number[] = [];
  let bytes = 0;
  const statuses = new Map<number, number>();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      { url, headers, connections: VIEWERS, amount },
      (err: Error | null, done: autocannon.Result) => (err ? reject(err) : resolve(done)),
    );
    run.on('response', (_client, statusCode, responseBytes, responseTime) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
      times.push(responseTime);
      bytes = responseBytes;
    });
  });
  if (statuses.size !== 1 || !statuses.has(status) || result.errors > 0)
    throw new Error(
      `${url} answered ${JSON.stringify([...statuses])} with ${result.errors} errors, not only ${status}`,
    );
  return { times, bytes };
}

/** One GET over node:http with kept-alive connections, for the warm-up and each viewer's first request. */
function keptAliveGetter(url: string, headers: Record<string, string>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: VIEWERS });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (response) => {
          response.resume();
          response.on('end', resolve);
          response.on('error', reject);
        })
        .on('error', reject);
    });
  return { get, close: () => agent.destroy() };
}

view(workerData as Load).then(
  (result) => parentPort!.postMessage(result),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
