import { BrowserPool } from '../src/browser/pool';
import { DEFAULT_CHROMIUM_PATH } from '../src/browser/chromium';
import type { MeasuredPage } from '../src/browser/stage-result';
import { pageLabScore } from '../src/analyzers/browser-stage';
import { parseCidrList } from '../src/outbound/policy';
import { serveFixtureSite } from '../test/support/fixture-server';
import { serveRealSites } from './compare/real-run';

/**
 * `node --import tsx bench/lab-spread.ts [--runs N] [site:path …]`: the run-to-run spread of the
 * browser stage's lab metrics on identical content. Each page is rendered N times (default 8) in one
 * warm pool, exactly as the stage renders it (src/browser/lighthouse.ts, one run at a time, no
 * median rule), and its performance score computed as the audit publishes it (pageLabScore).
 * Prints per page the scores and each metric's range, and the spread: the largest distance of a
 * run's score from the page's median (SCORE_SPREAD in src/browser/steady-score.ts, docs/analyzers.md
 * "How stable a score is"). Default pages: the three static-site fixtures, light to heavy; `real:<id>:<path>`
 * names a page of a real site of bench/compare/real-sites.json.
 */
const DEFAULT_PAGES = ['ssg-docs:/', 'ssg-docs:/getting-started/', 'ssg-blog:/', 'ssg-shop:/', 'ssg-shop:/products/'];

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--runs');
  const runs = at >= 0 ? Number(argv.splice(at, 2)[1]) : 8;
  const pages = argv.length > 0 ? argv : DEFAULT_PAGES;
  const servers = new Map<string, { origin: string; close(): Promise<void> }>();
  const serve = async (site: string) =>
    site.startsWith('real:') ? (await serveRealSites([site.slice(5)], {}))[0]! : serveFixtureSite(site);
  const pool = new BrowserPool({ executablePath: DEFAULT_CHROMIUM_PATH, size: 1, allow: parseCidrList('127.0.0.0/8') });
  const deviations: number[] = [];
  try {
    await pool.warm();
    for (const page of pages) {
      const at = page.lastIndexOf(':');
      const [site, path] = [page.slice(0, at), page.slice(at + 1)];
      if (!servers.has(site)) servers.set(site, await serve(site));
      const url = `${servers.get(site)!.origin}${path}`;
      const measured: MeasuredPage[] = [];
      for (let i = 0; i < runs; i++) {
        const r = await pool.render(url);
        if (r.status === 'measured') measured.push(r);
        else console.log(`  ${page} run ${i + 1}: ${r.reason}`);
      }
      const scores = measured.map((m) => pageLabScore(m.metrics));
      const mid = median(scores);
      const spread = Math.max(...scores.map((s) => Math.abs(s - mid)));
      deviations.push(...scores.map((s) => Math.abs(s - mid)));
      console.log(`${page}: scores ${scores.join(' ')} (median ${mid}, spread ±${spread})`);
      for (const key of ['fcpMs', 'lcpMs', 'tbtMs', 'speedIndexMs', 'cls'] as const) {
        const v = measured.map((m) => m.metrics[key]);
        const fmt = (x: number) => (key === 'cls' ? x.toFixed(3) : String(Math.round(x)));
        console.log(`  ${key.padEnd(12)} median ${fmt(median(v))}, ${fmt(Math.min(...v))} – ${fmt(Math.max(...v))}`);
      }
    }
  } finally {
    await pool.close();
    await Promise.all([...servers.values()].map((s) => s.close()));
  }
  const sorted = deviations.sort((a, b) => a - b);
  const p90 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] ?? 0;
  console.log(
    `\n${deviations.length} runs: largest distance from a page's median ±${sorted.at(-1)}, 90th percentile ±${p90}`,
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
