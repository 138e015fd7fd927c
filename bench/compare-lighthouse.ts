import fs from 'node:fs';
import { parseCidrList } from '../src/outbound/policy';
import { loadConfig } from '../src/config';
import { serveFixtureSite, type FixtureServer } from '../test/support/fixture-server';
import type { Pair, SiteScore } from './compare/agreement';
import { CHECKS, lighthouseVerdict, ourVerdict } from './compare/checks';
import { differenceFor } from './compare/differences';
import { CHROMIUM_PATH, startLighthouse, type LighthousePage, type LighthouseRunner } from './compare/lighthouse';
import { auditSite, comparablePages, type OurAudit } from './compare/our-side';
import { BrowserPool } from '../src/browser/pool';
import { agreementTable, disagreementLines, rankingLines } from './compare/report';

/**
 * `npm run compare:lighthouse -- <url>` or `-- --fixtures`: audits local sites with our engine
 * (crawler and analyzers, in this process) and with Lighthouse 13 (every category, in Chromium) on
 * the same pages, then prints how far the verdicts agree on the checks both make (Lighthouse as the
 * reference: precision and recall of our failures) and both sides' performance scores and ranking.
 *
 * Options: `--pages N` (Lighthouse runs on at most N crawled HTML pages per site, crawl order, default
 * 8), `--no-lab` (no browser stage on our side: performance from the HTML diagnostics), `--sites a,b` (fixture sites to serve, default FIXTURE_SITES), `--json file` (writes every pair
 * and score), `--lighthouse-cache file` (fixture sites only: reuse Lighthouse reports kept in the file,
 * by site and path, and add new ones to it). Loopback is allowed for the crawl, plus OUTBOUND_ALLOW_CIDRS.
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
  sites: string[];
  pages: number;
  json?: string;
  lighthouseCache?: string;
  lab: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { fixtures: false, sites: FIXTURE_SITES, pages: 8, lab: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--fixtures') args.fixtures = true;
    else if (a === '--pages') args.pages = Number(argv[++i]);
    else if (a === '--sites') args.sites = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (a === '--json') args.json = argv[++i];
    else if (a === '--lighthouse-cache') args.lighthouseCache = argv[++i];
    else if (a === '--no-lab') args.lab = false;
    else if (!a.startsWith('--')) args.url = a;
    else throw new Error(`unknown option ${a}`);
  }
  if (!args.fixtures && !args.url)
    throw new Error('usage: compare:lighthouse -- <url> | --fixtures [--pages N] [--sites a,b] [--json file]');
  if (!Number.isInteger(args.pages) || args.pages < 1) throw new Error('--pages needs a positive whole number');
  return args;
}

interface SiteRun {
  site: string;
  ours: OurAudit;
  lighthouse: LighthousePage[];
}

/**
 * Lighthouse reports kept between runs (`--lighthouse-cache file`), by site and path, so a change to
 * an analyzer can be compared again without the minutes of Lighthouse runs. Only for fixture sites,
 * whose pages do not change when our analyzers do.
 */
type LighthouseCache = Record<string, LighthousePage>;

interface RunContext {
  lh: LighthouseRunner;
  pageCap: number;
  cache: LighthouseCache | undefined;
  /** Our browser stage's Chromium pool; null with --no-lab. */
  pool: BrowserPool | null;
}

/**
 * The browser stage samples pages as a team-tier audit does (up to 10, home page first): every HTML
 * page of a fixture site, so both sides' performance scores cover the same pages.
 */
const TIER = 'team';

async function compareSite(site: string, origin: string, ctx: RunContext): Promise<SiteRun> {
  const ours = await auditSite(origin, { allow: allowList(), pageBudget: 50, tier: TIER, pool: ctx.pool });
  const pages = comparablePages(ours.pages).slice(0, ctx.pageCap);
  const lighthouse: LighthousePage[] = [];
  for (const p of pages) {
    const key = `${site} ${p.finalUrl.slice(origin.length)}`;
    const cached = ctx.cache?.[key];
    const r = cached ? { ...cached, url: p.finalUrl } : await ctx.lh.run(p.finalUrl);
    if (ctx.cache) ctx.cache[key] = r;
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

function pairsOf(run: SiteRun): Pair[] {
  const pairs: Pair[] = [];
  for (const lhPage of run.lighthouse) {
    if (lhPage.runtimeError) continue;
    const crawled = run.ours.pages.find((p) => p.finalUrl === lhPage.url)!;
    const page = { ...crawled, rendered: run.ours.rendered.has(crawled.finalUrl) };
    for (const check of CHECKS) {
      const ours = ourVerdict(check, page, run.ours.findings, run.ours.statuses);
      const lighthouse = lighthouseVerdict(check, lhPage.audits);
      const difference = differenceFor(check.id, ours, lighthouse, page, lhPage.audits)?.reason;
      pairs.push({ check: check.id, site: run.site, url: lhPage.url, ours, lighthouse, difference });
    }
  }
  return pairs;
}

/** Lighthouse's side: the mean performance score of the compared pages that answered 2xx, as our stage samples. */
function siteScore(run: SiteRun): SiteScore {
  const ok = new Set(run.ours.pages.filter((p) => p.status >= 200 && p.status < 300).map((p) => p.finalUrl));
  const perf = run.lighthouse
    .filter((p) => ok.has(p.url))
    .map((p) => p.categories.performance)
    .filter((s): s is number => typeof s === 'number');
  const mean = perf.length === 0 ? 0 : Math.round(perf.reduce((a, b) => a + b, 0) / perf.length);
  return { site: run.site, lighthouse: mean, ours: run.ours.performance.score };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const lh = startLighthouse();
  const cache: LighthouseCache | undefined = args.lighthouseCache
    ? fs.existsSync(args.lighthouseCache)
      ? (JSON.parse(fs.readFileSync(args.lighthouseCache, 'utf8')) as LighthouseCache)
      : {}
    : undefined;
  const runs: SiteRun[] = [];
  const servers: FixtureServer[] = [];
  // Requests the outbound policy refused in the stage's browser, named once at the end instead of logged each.
  const refused = new Set<string>();
  const pool = args.lab
    ? new BrowserPool({
        executablePath: CHROMIUM_PATH,
        size: 1,
        allow: allowList(),
        onRefused: (r) => void refused.add(r.host),
      })
    : null;
  const ctx: RunContext = { lh, pageCap: args.pages, cache: undefined, pool };
  try {
    if (args.url) runs.push(await compareSite(new URL(args.url).host, new URL(args.url).origin, ctx));
    if (args.fixtures)
      for (const site of args.sites) {
        const server = await serveFixtureSite(site);
        servers.push(server);
        runs.push(await compareSite(site, server.origin, { ...ctx, cache }));
      }
  } finally {
    await lh.close();
    await pool?.close();
    await Promise.all(servers.map((s) => s.close()));
  }
  if (cache && args.lighthouseCache) fs.writeFileSync(args.lighthouseCache, JSON.stringify(cache));
  const pairs = runs.flatMap(pairsOf);
  const scores = runs.map(siteScore);
  const origins = new Map(runs.map((r) => [r.site, r.ours.origin]));
  const basis = new Map(runs.map((r) => [r.site, r.ours.performance.source]));
  console.log(`\nLighthouse 13 vs our audit on ${pairs.length / CHECKS.length} pages of ${runs.length} site(s)\n`);
  console.log(agreementTable(pairs).join('\n'));
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
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
