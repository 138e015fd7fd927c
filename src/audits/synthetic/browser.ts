import type {
  BrowserPageResult,
  BrowserStageResult,
  ConsoleError,
  LabMetrics,
  RenderedViolation,
} from '../../browser/stage-result';
import { SAMPLE_SIZE } from '../../browser/sampling';
import type { Tier } from '../../schemas/audit';
import type { Rng, RngStreams } from './rng';
import type { Site, SitePage } from './site';

/**
 * The browser stage of a test-mode audit: a deterministic BrowserStageResult for the pages the live
 * stage would sample (home page first, then the most-linked pages, as many as the tier samples), fed
 * through the same `mergeBrowserStage` as live results, so findings and scores come from one
 * implementation. A page's metrics depend only on the workspace, domain and URL: a page sampled at
 * two tiers measures the same.
 */

/** Sampled pages per tier: the live stage's (docs/analyzers.md, "Browser stage"). */
export const SYNTHETIC_BROWSER_SAMPLE: Readonly<Record<Tier, number>> = SAMPLE_SIZE;

export interface SyntheticBrowserInput {
  site: Site;
  tier: Tier;
  /** Pages the crawl listed, in crawl order (home first). */
  listed: readonly SitePage[];
  /** Pages answering an error status: never sampled (the live stage samples pages that answered 200). */
  broken: ReadonlySet<string>;
  /** Pages whose images have no dimensions: they shift more while loading. */
  unsizedImages: ReadonlySet<string>;
  stream: RngStreams;
}

export function syntheticBrowserStage(input: SyntheticBrowserInput): BrowserStageResult {
  const { site, stream } = input;
  const sample = input.listed
    .filter((p) => p.path === '/' || !input.broken.has(p.url))
    .slice(0, SYNTHETIC_BROWSER_SAMPLE[input.tier]);
  // Site-wide traits, drawn once: the same layout (and its problems) is on every page.
  const traits = siteTraits(site, stream('browser:site'));
  const pages = sample.map((p) => samplePage(p, traits, input.unsizedImages.has(p.url), stream(`browser:${p.url}`)));
  const durationMs = pages.reduce((sum, p) => sum + (p.status === 'measured' ? p.durationMs : 30_000), 0);
  return { pages, durationMs: Math.round(durationMs / 2) };
}

interface SiteTraits {
  /** Typical mobile LCP of the site's pages under simulated throttling. */
  lcpMs: number;
  tbtMs: number;
  cls: number;
  contrast: boolean;
  linkInText: boolean;
  targetSize: boolean;
  scriptError: boolean;
  host: string;
}

function siteTraits(site: Site, rng: Rng): SiteTraits {
  const neglect = 1 - site.quality;
  return {
    // Lab LCP on a throttled phone: well-kept sites 1.5–3 s, neglected ones up to ~8 s.
    lcpMs: 1500 + neglect * rng.int(800, 6000),
    tbtMs: Math.round(neglect * rng.int(0, 1400)),
    cls: Math.round(neglect * rng.next() * 0.35 * 1000) / 1000,
    contrast: rng.chance(0.15 + 0.45 * neglect),
    linkInText: rng.chance(0.05 + 0.2 * neglect),
    targetSize: rng.chance(0.1 + 0.3 * neglect),
    scriptError: rng.chance(0.1 + 0.35 * neglect),
    host: site.host,
  };
}

function samplePage(page: SitePage, traits: SiteTraits, unsized: boolean, rng: Rng): BrowserPageResult {
  // Fixed number of draws per page, so one trait never shifts another.
  const [rTimeout, rLcp, rTbt, rCls, rFcp, rSi, rDuration] = Array.from({ length: 7 }, () => rng.next());
  if (page.path !== '/' && rTimeout! < 0.03)
    return { url: page.url, status: 'unrenderable', reason: 'The page did not finish loading within 30 s.' };
  const lcpMs = Math.round(traits.lcpMs * (0.8 + rLcp! * 0.5));
  const fcpMs = Math.round(Math.min(lcpMs, 900 + rFcp! * 0.55 * lcpMs));
  const metrics: LabMetrics = {
    fcpMs,
    lcpMs,
    cls: Math.round((traits.cls * (0.6 + rCls! * 0.8) + (unsized ? 0.08 : 0)) * 1000) / 1000,
    tbtMs: Math.round(traits.tbtMs * (0.7 + rTbt! * 0.6)),
    speedIndexMs: Math.round(fcpMs + (lcpMs - fcpMs) * (0.6 + rSi! * 0.8) + 400),
  };
  return {
    url: page.url,
    status: 'measured',
    metrics,
    violations: violations(traits),
    consoleErrors: consoleErrors(traits),
    durationMs: Math.round(9_000 + rDuration! * 9_000),
  };
}

/** Problems of the shared layout: the same elements fail on every sampled page. */
function violations(t: SiteTraits): RenderedViolation[] {
  const out: RenderedViolation[] = [];
  if (t.contrast)
    out.push({
      rule: 'color-contrast',
      nodes: [
        {
          selector: 'footer > .legal',
          html: '<p class="legal">© All rights reserved.</p>',
          message:
            'Element has insufficient color contrast of 2.85 (foreground color: #a0a0a0, background color: #ffffff, font size: 9.0pt (12px), font weight: normal). Expected contrast ratio of 4.5:1',
        },
      ],
    });
  if (t.linkInText)
    out.push({
      rule: 'link-in-text-block',
      nodes: [
        {
          selector: 'main p > a',
          html: '<a href="/pricing" class="inline-link">see our plans</a>',
          message:
            'The link has insufficient color contrast of 1.42:1 with the surrounding text. (Minimum contrast is 3:1, link text: #3b82f6, surrounding text: #4b5563)',
        },
      ],
    });
  if (t.targetSize)
    out.push({
      rule: 'target-size',
      nodes: [
        {
          selector: '.social > a:nth-child(2)',
          html: '<a href="https://x.com/" aria-label="X"><svg width="16" height="16"></svg></a>',
          message: 'Target has insufficient size (16px by 16px, should be at least 24px by 24px)',
        },
      ],
    });
  return out;
}

function consoleErrors(t: SiteTraits): ConsoleError[] {
  if (!t.scriptError) return [];
  return [
    {
      source: 'exception',
      text: "Uncaught TypeError: Cannot read properties of undefined (reading 'init')",
      url: `https://${t.host}/assets/app.js`,
    },
  ];
}
