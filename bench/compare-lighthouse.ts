import fs from 'node:fs';
import { parseCidrList } from '../src/outbound/policy';
import { loadConfig } from '../src/config';
import { serveFixtureSite } from '../test/support/fixture-server';
import { CHECKS } from './compare/checks';
import {
  CHROMIUM_PATH,
  LOOPBACK_ONLY_FLAGS,
  startLighthouse,
  type LighthousePage,
  type LighthouseRunner,
} from './compare/lighthouse';
import { auditSite, comparablePages } from './compare/our-side';
import { BrowserPool } from '../src/browser/pool';
import { pageLabScore } from '../src/analyzers/browser-stage';
import { agreementTable, disagreementLines, rankingLines, siteTable } from './compare/report';
import {
  cacheKey,
  forCache,
  pairsOf,
  sameDocument,
  siteScore,
  type LighthouseCache,
  type SiteRun,
} from './compare/pairs';
import { serveRealSites, writeExpected, REAL_LIGHTHOUSE_CACHE } from './compare/real-run';

/**
 * `npm run compare:lighthouse -- <url>`, `-- --fixtures` or `-- --real`: audits local sites with our engine
 * (crawler and analyzers, in this process) and with Lighthouse 13 (every category, in Chromium) on
 * the same pages, then prints how far the verdicts agree on the checks both make (Lighthouse as the
 * reference: precision and recall of our failures) and both sides' performance scores and ranking.
 *
 * Options: `--pages N` (Lighthouse runs on at most N crawled HTML pages per site, crawl order, default
 * 8), `--no-lab` (no browser stage on our side: performance from the HTML diagnostics), `--sites a,b`
 * (fixture or real sites to serve, default all), `--json file` (writes every pair and score),
 * `--lighthouse-cache file` (fixture and real sites only: reuse Lighthouse reports kept in the file, by
 * site and path, and add new ones to it; `--real` uses bench/compare/real-sites-lighthouse.json unless
 * told otherwise). `--real`: the real static sites of bench/compare/real-sites.json, extracted into
 * `--cache dir` (default ~/.cache/domain-audit/real-sites) from `--mirror dir` or GitHub;
 * `--write-expected` then writes bench/compare/real-sites-expected.json. Loopback is allowed for the
 * crawl, plus OUTBOUND_ALLOW_CIDRS.
 */

/**
 * The fixture sites served by `--fixtures`: the http ones of test/fixtures/README.md and the three
 * realistic static sites of different weight (ssg-*). broken-https is left out: Chromium refuses its
 * test certificate.
 */
const FIXTURE_SITES = ['clean', 'broken-seo', 'broken-sec-perf', 'accuracy', 'ssg-docs', 'ssg-blog', 'ssg-shop'];

interface Args {
  url?: string;
  fixtures: boolean;
  real: boolean;
  writeExpected: boolean;
  cacheDir?: string;
  mirrorDir?: string;
  /** Sites to serve; empty: all of the kind asked for. */
  sites: string[];
  pages: number;
  json?: string;
  lighthouseCache?: string;
  lab: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { fixtures: false, real: false, writeExpected: false, sites: [], pages: 8, lab: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--fixtures') args.fixtures = true;
    else if (a === '--real') args.real = true;
    else if (a === '--write-expected') args.writeExpected = true;
    else if (a === '--cache') args.cacheDir = argv[++i];
    else if (a === '--mirror') args.mirrorDir = argv[++i];
    else if (a === '--pages') args.pages = Number(argv[++i]);
    else if (a === '--sites') args.sites = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--json') args.json = argv[++i];
    else if (a === '--lighthouse-cache') args.lighthouseCache = argv[++i];
    else if (a === '--no-lab') args.lab = false;
    else if (!a.startsWith('--')) args.url = a;
    else throw new Error(`unknown option ${a}`);
  }
  if (!args.fixtures && !args.real && !args.url)
    throw new Error('usage: compare:lighthouse -- <url> | --fixtures | --real [--pages N] [--sites a,b] [--json file]');
  if (args.writeExpected && (!args.real || args.fixtures || args.url || args.sites.length > 0))
    throw new Error('--write-expected needs --real on every real site, alone');
  if (!Number.isInteger(args.pages) || args.pages < 1) throw new Error('--pages needs a positive whole number');
  return args;
}

interface RunContext {
  lh: LighthouseRunner;
  pageCap: number;
  /**
   * Lighthouse reports kept between runs, by site and path, so a change to an analyzer can be compared
   * again without the minutes of Lighthouse runs. Only for fixture and real sites, whose pages do not
   * change when our analyzers do.
   */
  cache: LighthouseCache | undefined;
  /** Our browser stage's Chromium pool; null with --no-lab. */
  pool: BrowserPool | null;
  /** Path prefixes whose pages are not compared. */
  elsewhere?: readonly string[];
}

/**
 * The browser stage samples pages as a team-tier audit does (up to 10, home page first): every HTML
 * page of a fixture site, so both sides' performance scores cover the same pages.
 */
const TIER = 'team';

async function compareSite(site: string, origin: string, ctx: RunContext): Promise<SiteRun> {
  const ours = await auditSite(origin, { allow: allowList(), pageBudget: 50, tier: TIER, pool: ctx.pool });
  const pages = comparablePages(ours.pages)
    .filter((p) => !(ctx.elsewhere ?? []).some((prefix) => p.finalUrl.slice(origin.length).startsWith(prefix)))
    .slice(0, ctx.pageCap);
  const lighthouse: LighthousePage[] = [];
  for (const p of pages) {
    const key = cacheKey(site, origin, p.finalUrl);
    const cached = ctx.cache?.[key];
    const r = cached ? { ...cached, url: p.finalUrl } : await ctx.lh.run(p.finalUrl);
    // A report reused is kept as stored: rewritten, it changed by the loopback port alone.
    if (ctx.cache && !cached) ctx.cache[key] = forCache(r);
    if (!cached)
      console.log(
        `  ${site} ${p.finalUrl.slice(origin.length) || '/'}: Lighthouse ${r.durationMs} ms, performance ${r.categories.performance}${r.runtimeError ? ` (${r.runtimeError})` : ''}`,
      );
    lighthouse.push(r);
  }
  console.log(
    `  ${site}: crawled ${ours.pages.length} pages in ${ours.crawlMs} ms, browser stage ${ours.rendered.size} pages in ${ours.stageMs} ms, compared ${pages.length}`,
  );
  return { site, ours, lighthouse };
}

/** Loopback (the local sites) and OUTBOUND_ALLOW_CIDRS. */
function allowList() {
  return [...parseCidrList('127.0.0.0/8,::1/128'), ...loadConfig().outboundAllow];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // A public URL needs the network; local sites are compared with every other host refused.
  const lh = startLighthouse(args.url ? [] : LOOPBACK_ONLY_FLAGS);
  const cacheFile = args.lighthouseCache ?? (args.real ? REAL_LIGHTHOUSE_CACHE : undefined);
  const cache: LighthouseCache | undefined = cacheFile
    ? fs.existsSync(cacheFile)
      ? (JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as LighthouseCache)
      : {}
    : undefined;
  const runs: SiteRun[] = [];
  const servers: Array<{ close(): Promise<void> }> = [];
  // Requests the outbound policy refused in the stage's browser, named once at the end instead of logged each.
  const refused = new Set<string>();
  const pool = args.lab
    ? new BrowserPool({
        executablePath: CHROMIUM_PATH,
        size: 1,
        allow: allowList(),
        onRefused: (r) => void refused.add(r.host),
        performanceScore: pageLabScore,
      })
    : null;
  const ctx: RunContext = { lh, pageCap: args.pages, cache: undefined, pool };
  try {
    if (args.url) runs.push(await compareSite(new URL(args.url).host, new URL(args.url).origin, ctx));
    if (args.fixtures)
      for (const site of args.sites.length > 0 ? args.sites.filter((s) => FIXTURE_SITES.includes(s)) : FIXTURE_SITES) {
        const server = await serveFixtureSite(site);
        servers.push(server);
        runs.push(await compareSite(site, server.origin, { ...ctx, cache }));
      }
    if (args.real)
      for (const site of await serveRealSites(args.sites, { cacheDir: args.cacheDir, mirrorDir: args.mirrorDir })) {
        servers.push(site);
        runs.push(await compareSite(site.id, site.origin, { ...ctx, cache, elsewhere: site.elsewhere }));
      }
  } finally {
    await lh.close();
    await pool?.close();
    await Promise.all(servers.map((s) => s.close()));
    // Also after a failure: the reports made so far are not made again.
    if (cache && cacheFile) writeCache(cacheFile, cache);
  }
  report(runs, refused, args);
}

/** Sorted by key, one report a line: a committed cache changes by the pages that changed. */
function writeCache(file: string, cache: LighthouseCache): void {
  const keys = Object.keys(cache).sort();
  fs.writeFileSync(file, `{\n${keys.map((k) => `${JSON.stringify(k)}: ${JSON.stringify(cache[k])}`).join(',\n')}\n}\n`);
}

function report(runs: readonly SiteRun[], refused: ReadonlySet<string>, args: Args): void {
  const pairs = runs.flatMap(pairsOf);
  const scores = runs.map(siteScore);
  const origins = new Map(runs.map((r) => [r.site, r.ours.origin]));
  const basis = new Map(runs.map((r) => [r.site, r.ours.performance.source]));
  console.log(`\nLighthouse 13 vs our audit on ${pairs.length / CHECKS.length} pages of ${runs.length} site(s)\n`);
  console.log(agreementTable(pairs).join('\n'));
  if (runs.length > 1) console.log(`\nper site\n${siteTable(pairs).join('\n')}`);
  const skipped = runs.flatMap((r) =>
    r.lighthouse
      .filter((p) => !sameDocument(p))
      .map(
        (p) =>
          `  ${r.site}${p.url.slice(r.ours.origin.length)}: ${p.runtimeError ?? `Lighthouse ended on ${p.finalUrl}`}`,
      ),
  );
  if (skipped.length > 0)
    console.log(`\npages not compared (Lighthouse judged no page or another one):\n${skipped.join('\n')}`);
  const diff = disagreementLines(pairs, origins);
  console.log(`\ndisagreements: ${diff.length}`);
  if (diff.length > 0) console.log(diff.join('\n'));
  console.log(
    "\nperformance (Lighthouse: mean of the compared 2xx pages; ours: the audit's performance category, browser stage on a team tier's sample)",
  );
  console.log(rankingLines(scores, basis).join('\n'));
  if (refused.size > 0)
    console.log(`\nbrowser stage: requests refused by the outbound policy to ${[...refused].join(', ')}`);
  if (args.json) fs.writeFileSync(args.json, JSON.stringify({ pairs, scores }, null, 2));
  if (args.writeExpected) console.log(`\n${writeExpected(pairs, origins)}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
