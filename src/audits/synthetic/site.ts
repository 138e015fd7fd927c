import { getDomain } from 'tldts';
import type { Rng } from './rng';

/** The made-up website a test-mode audit reports on: its size, pages, quality and mail set-up. */

/** Listed pages are capped to keep stored bodies small; crawl.pages_crawled carries the real count. */
export const SYNTHETIC_MAX_LISTED_PAGES = 25;

const TOP_PATHS = [
  '/pricing',
  '/about',
  '/contact',
  '/blog',
  '/features',
  '/customers',
  '/docs',
  '/careers',
  '/security',
  '/privacy',
  '/terms',
  '/integrations',
  '/changelog',
  '/support',
  '/login',
  '/signup',
  '/partners',
  '/press',
  '/solutions',
  '/resources',
];
const NESTED_PATHS = [
  '/docs/getting-started',
  '/docs/api',
  '/docs/faq',
  '/solutions/enterprise',
  '/solutions/startups',
  '/resources/guides',
  '/resources/webinars',
  '/customers/case-studies',
  '/careers/engineering',
];
const SLUG_A = ['how', 'why', 'what', 'ten', 'five', 'the', 'a'];
const SLUG_B = ['teams', 'we', 'customers', 'startups', 'developers', 'marketers', 'founders'];
const SLUG_C = [
  'ship-faster',
  'scale-support',
  'reduce-churn',
  'measure-growth',
  'plan-a-launch',
  'hire-well',
  'cut-costs',
];

export interface SitePage {
  url: string;
  path: string;
  depth: number;
}

export interface Site {
  host: string;
  registrable: string;
  name: string;
  /** Pages the site has (the crawl stops at the tier's budget). */
  size: number;
  /** Pages in crawl order (home first); as many as could ever be listed. */
  pages: SitePage[];
  /** 0 (neglected) … 1 (well kept): scales how often checks fail. */
  quality: number;
  baseTtfb: number;
  sendsMail: boolean;
  dnsAvailable: boolean;
}

export function buildSite(domain: string, rng: Rng): Site {
  const host = hostOf(domain);
  const registrable = getDomain(host) ?? host;
  const label = (registrable.split('.')[0] ?? host).replace(/[^a-z0-9-]/gi, '');
  const name = label ? label.charAt(0).toUpperCase() + label.slice(1) : host;
  // Log-uniform between 4 and 5,000 pages, as real sites' sizes spread.
  const size = Math.round(Math.exp(Math.log(4) + rng.next() * (Math.log(5000) - Math.log(4))));
  const top = [...TOP_PATHS];
  rng.shuffle(top);
  const nested = [...NESTED_PATHS];
  rng.shuffle(nested);
  const posts = new Set<string>();
  while (posts.size < 8) posts.add(`/blog/${rng.pick(SLUG_A)}-${rng.pick(SLUG_B)}-${rng.pick(SLUG_C)}`);
  const paths = [
    '/',
    ...top.slice(0, 12),
    ...[...posts].slice(0, 4),
    ...nested.slice(0, 4),
    ...top.slice(12),
    ...[...posts].slice(4),
  ];
  const pages = paths.slice(0, Math.min(size, SYNTHETIC_MAX_LISTED_PAGES)).map((path) => ({
    url: `${domain}${path}`,
    path,
    depth: path === '/' ? 0 : path.split('/').length - 1,
  }));
  const quality = rng.next();
  return {
    host,
    registrable,
    name,
    size,
    pages,
    quality,
    baseTtfb: Math.round(Math.exp(Math.log(90) + rng.next() * (Math.log(700) - Math.log(90)))),
    sendsMail: rng.chance(0.85),
    dnsAvailable: rng.chance(0.92),
  };
}

function hostOf(domain: string): string {
  try {
    return new URL(domain).hostname;
  } catch {
    return domain.replace(/^[a-z]+:\/\//i, '').replace(/[/:].*$/, '');
  }
}
