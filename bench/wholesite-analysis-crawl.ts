import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { CrawlSnapshot, SnapshotPage } from '../src/analyzers/snapshot';
import { crawlSite } from '../src/crawl/crawler';
import { storedPage, type StoredPageRow } from '../src/crawl/durable/stored-snapshot';
import { StringPool } from '../src/crawl/durable/string-pool';
import { DEFAULT_USER_AGENT } from '../src/outbound/client';
import { parseCidrList } from '../src/outbound/policy';
import { storedRowOf } from '../test/support/stored-row';
import { serveWholeSite } from './wholesite-site';

/**
 * A crawl of the generated site of bench:wholesite kept in files, in the form the durable crawl stores
 * it (src/crawl/durable/frontier-commit.ts): per page the metadata's JSON without its body, the
 * frontier's referrers beside it, and the body apart. bench/wholesite-analysis.ts reads it back the
 * way loadStoredSnapshot does (the same storedPage), so the analysis runs alone, without Postgres.
 */
const ROWS = 'pages.jsonl';
const BODIES = 'bodies.jsonl';
const REST = 'snapshot.json';

/** Crawls a generated site of `size` pages in this process and writes it under `dir`. */
export async function writeCrawl(size: number, dir: string): Promise<number> {
  const site = await serveWholeSite(size);
  let snapshot: CrawlSnapshot;
  try {
    snapshot = await crawlSite({
      origin: site.origin,
      pageBudget: 1_000_000,
      allow: parseCidrList('127.0.0.0/8'),
      userAgent: DEFAULT_USER_AGENT,
      lookupDns: false,
      probeTls: false,
    });
  } finally {
    await site.close();
  }
  fs.mkdirSync(dir, { recursive: true });
  const rows = fs.openSync(path.join(dir, ROWS), 'w');
  const bodies = fs.openSync(path.join(dir, BODIES), 'w');
  for (const page of snapshot.pages) {
    fs.writeSync(rows, JSON.stringify(storedRowOf(page)) + '\n');
    fs.writeSync(bodies, JSON.stringify(page.body) + '\n');
  }
  fs.closeSync(rows);
  fs.closeSync(bodies);
  fs.writeFileSync(path.join(dir, REST), JSON.stringify({ ...snapshot, pages: [] }));
  return snapshot.pages.length;
}

async function* lines(file: string): AsyncGenerator<string> {
  const input = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const line of input) if (line !== '') yield line;
}

/** The snapshot as loadStoredSnapshot makes it (one pool for every row), from the files of writeCrawl. */
export async function readSnapshot(dir: string): Promise<CrawlSnapshot> {
  const pool = new StringPool();
  const pages: SnapshotPage[] = [];
  for await (const line of lines(path.join(dir, ROWS))) pages.push(storedPage(JSON.parse(line) as StoredPageRow, pool));
  const rest = pool.parse<CrawlSnapshot>(fs.readFileSync(path.join(dir, REST), 'utf8'));
  return { ...rest, pages };
}

/** Each page's body in crawl order, read as it is asked for (as storedPageBodies streams them). */
export async function* readBodies(dir: string): AsyncGenerator<string | null> {
  for await (const line of lines(path.join(dir, BODIES))) yield JSON.parse(line) as string | null;
}
