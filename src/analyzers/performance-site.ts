import type { Element } from 'domhandler';
import { attr, hasAncestor, snippet, truncate, type ParsedPage } from './parse';
import { headerValue, mediaType, type SnapshotResource } from './snapshot';
import { normalizeUrl, plural, sameSite } from './site-util';
import { resourceSubject } from './subject';
import {
  EVIDENCE_MAX,
  PAGE_PASS,
  defineAnalyzer,
  pageAnalyzer,
  pageIssues,
  perPage,
  siteAnalyzer,
  type Analyzer,
  type FindingDraft,
  type Issue,
} from './types';

/** Performance checks of server response time, caching, page weight and render-blocking markup. */

// ── PERF_TTFB_SLOW ───────────────────────────────────────────────────────────────────────────────

export const TTFB_FAIL_MS = 800;
export const TTFB_WARN_MS = 600;

/**
 * Every crawled response is a unit: > 800 ms fails, > 600 ms warns. Slow pages are grouped into one
 * finding per outcome (slowest first) rather than one finding per page.
 */
export const ttfbSlow = siteAnalyzer('PERF_TTFB_SLOW', (_s, observed) => {
  const units = observed.filter((o) => Number.isFinite(o.page.ttfbMs) && o.page.ttfbMs >= 0);
  const outcome = perPage(units, (o) => {
    const ms = o.page.ttfbMs;
    if (ms > TTFB_FAIL_MS) return { outcome: 'fail', issues: [] };
    if (ms > TTFB_WARN_MS) return { outcome: 'warn', issues: [] };
    return PAGE_PASS;
  });
  const findings: FindingDraft[] = [];
  for (const [min, max] of [
    [TTFB_FAIL_MS, Infinity],
    [TTFB_WARN_MS, TTFB_FAIL_MS],
  ] as const) {
    const slow = units
      .filter((o) => o.page.ttfbMs > min && o.page.ttfbMs <= max)
      .sort((a, b) => b.page.ttfbMs - a.page.ttfbMs);
    if (slow.length === 0) continue;
    const ms = (o: (typeof slow)[number]) => Math.round(o.page.ttfbMs);
    findings.push({
      message: `${slow.length === 1 ? 'A page took' : `${plural(slow.length, 'page')} took`} more than ${min} ms to send the first byte (slowest ${ms(slow[0]!).toLocaleString('en-US')} ms).`,
      evidence: truncate(
        slow
          .slice(0, 5)
          .map((o) => `${o.url}: TTFB ${ms(o)} ms`)
          .join('; '),
        EVIDENCE_MAX,
      ),
      urls: slow.map((o) => o.url),
      subject: `over ${min} ms`,
    });
  }
  return { ...outcome, findings };
});

// ── PERF_CACHE_WEAK ──────────────────────────────────────────────────────────────────────────────

const DAY = 86_400;
/** A long lifetime: 7 days (or `immutable`); below one day fails, one to seven days warns. */
export const CACHE_LONG_SECONDS = 7 * DAY;
export const CACHE_SHORT_SECONDS = DAY;

type StaticKind = 'script' | 'stylesheet' | 'image' | 'font';

/** The resource's kind from the crawler, else from its Content-Type, else from its extension. */
export function staticKind(r: SnapshotResource): StaticKind | null {
  if (r.kind) return r.kind === 'other' ? null : r.kind;
  const type = mediaType(r.headers);
  if (type === 'text/css') return 'stylesheet';
  if (/(java|ecma)script$/.test(type)) return 'script';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('font/') || /font|vnd\.ms-fontobject/.test(type)) return 'font';
  if (type !== '' && type !== 'application/octet-stream' && type !== 'text/plain') return null;
  let path: string;
  try {
    path = new URL(r.url).pathname.toLowerCase();
  } catch {
    return null;
  }
  if (/\.(m?js)$/.test(path)) return 'script';
  if (/\.css$/.test(path)) return 'stylesheet';
  if (/\.(png|jpe?g|gif|webp|avif|svg|ico)$/.test(path)) return 'image';
  if (/\.(woff2?|ttf|otf|eot)$/.test(path)) return 'font';
  return null;
}

/** Browser cache lifetime in seconds from Cache-Control (or Expires − Date); Infinity for immutable. */
export function cacheLifetime(r: SnapshotResource): number {
  const cc = (headerValue(r.headers, 'cache-control') ?? '').toLowerCase();
  const directives = new Map<string, string>();
  for (const part of cc.split(',')) {
    const [k, v] = part.split('=');
    if (k && k.trim() !== '') directives.set(k.trim(), (v ?? '').trim().replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  if (directives.has('immutable')) return Infinity;
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) {
    const n = Number(maxAge);
    return Number.isFinite(n) && n > 0 ? n : 0;
  }
  const expires = Date.parse(headerValue(r.headers, 'expires') ?? '');
  const date = Date.parse(headerValue(r.headers, 'date') ?? '');
  if (Number.isFinite(expires) && Number.isFinite(date)) return Math.max(0, (expires - date) / 1000);
  return 0;
}

function describeLifetime(seconds: number): string {
  if (seconds <= 0) return 'not cached';
  if (seconds < 3600) return `cached for ${Math.round(seconds / 60)} min`;
  if (seconds < DAY) return `cached for ${Math.round(seconds / 3600)} h`;
  return `cached for ${Math.round(seconds / DAY)} days`;
}

/**
 * Units: the site's own static assets (scripts, stylesheets, images, fonts answering 2xx); third-party
 * assets are left out because the site owner cannot set their headers. Identical Cache-Control values
 * group into one finding listing every asset.
 */
/**
 * The subject of a weak cache finding is the policy the assets share: the Cache-Control directives
 * (lower-cased, sorted), else "expires" (its date moves with every response), else "absent".
 */
export function cachePolicySubject(cc: string | undefined, expires: string | undefined): string {
  if (cc !== undefined)
    return `cache-control ${cc
      .toLowerCase()
      .split(',')
      .map((d) => d.replace(/\s+/g, ''))
      .filter(Boolean)
      .sort()
      .join(',')}`;
  return expires !== undefined ? 'expires' : 'absent';
}

export const cacheWeak = siteAnalyzer('PERF_CACHE_WEAK', (snapshot) => {
  const assets = (snapshot.resources ?? []).filter(
    (r) => r.status >= 200 && r.status < 300 && staticKind(r) !== null && sameSite(snapshot, r.url),
  );
  return perPage(assets, (r) => {
    const life = cacheLifetime(r);
    if (life >= CACHE_LONG_SECONDS) return PAGE_PASS;
    const cc = headerValue(r.headers, 'cache-control');
    const evidence = truncate(
      `Cache-Control: ${cc ?? '(absent)'}${cc === undefined && headerValue(r.headers, 'expires') ? `; Expires: ${headerValue(r.headers, 'expires')}` : ''}`,
      EVIDENCE_MAX,
    );
    const outcome = life < CACHE_SHORT_SECONDS ? 'fail' : 'warn';
    return pageIssues([
      {
        outcome,
        message: `Static assets are ${describeLifetime(life)} (less than ${outcome === 'fail' ? 'a day' : '7 days'}).`,
        evidence,
        subject: cachePolicySubject(cc, headerValue(r.headers, 'expires')),
      },
    ]);
  });
});

// ── PERF_PAGE_WEIGHT_HIGH ────────────────────────────────────────────────────────────────────────

/**
 * Lighthouse total-byte-weight control points: a page above the p10 (2.6 MiB) warns and above the
 * median (4 MiB) fails. Weight = the document's transfer bytes plus every fetched resource it
 * references (in its markup, or per the resource's foundOn); resources the crawler did not fetch are
 * not known, so the figure is a lower bound.
 */
export const PAGE_WEIGHT_WARN_BYTES = Math.round(2.6 * 1024 * 1024);
export const PAGE_WEIGHT_FAIL_BYTES = 4 * 1024 * 1024;
const MAX_REFS_PER_PAGE = 300;

/** Absolute URLs of the subresources a page references: scripts, stylesheets, images, media, icons. */
export function referencedResources(p: ParsedPage): string[] {
  const out = new Set<string>();
  const add = (el: Element, name: string) => {
    const v = attr(el, name);
    if (v === undefined || v.trim() === '' || out.size >= MAX_REFS_PER_PAGE) return;
    const u = normalizeUrl(v, p.url);
    if (u !== null && /^https?:/.test(u)) out.add(u);
  };
  for (const s of p.elements('script')) add(s, 'src');
  for (const l of p.elements('link')) {
    const rel = (attr(l, 'rel') ?? '').toLowerCase();
    if (/\b(stylesheet|icon|preload|modulepreload)\b/.test(rel)) add(l, 'href');
  }
  for (const tag of ['img', 'video', 'audio', 'source', 'iframe', 'embed'])
    for (const el of p.elements(tag)) add(el, 'src');
  for (const v of p.elements('video')) add(v, 'poster');
  return [...out];
}

interface WeightObservation {
  bytes: number;
  refs: string[];
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
}

export const pageWeightHigh = defineAnalyzer<WeightObservation | null>({
  code: 'PERF_PAGE_WEIGHT_HIGH',
  observe: (p) => (p.isHtml ? { bytes: Math.max(0, p.page.bytes), refs: referencedResources(p) } : null),
  finish(snapshot, observed) {
    const resources = new Map<string, number>();
    const byPage = new Map<string, string[]>();
    for (const r of snapshot.resources ?? []) {
      const u = normalizeUrl(r.url) ?? r.url;
      resources.set(u, Math.max(0, r.bytes));
      for (const f of r.foundOn ?? []) {
        const key = normalizeUrl(f) ?? f;
        const list = byPage.get(key) ?? [];
        list.push(u);
        byPage.set(key, list);
      }
    }
    return perPage(observed, (o) => {
      const w = o.value;
      if (!w) return null;
      const own = new Set([normalizeUrl(o.url) ?? o.url, normalizeUrl(o.page.url) ?? o.page.url]);
      const refs = new Set(w.refs);
      for (const u of own) for (const r of byPage.get(u) ?? []) refs.add(r);
      let total = w.bytes;
      let counted = 0;
      for (const u of refs) {
        const b = resources.get(u);
        if (b !== undefined) {
          total += b;
          counted++;
        }
      }
      if (total <= PAGE_WEIGHT_WARN_BYTES) return PAGE_PASS;
      const outcome = total > PAGE_WEIGHT_FAIL_BYTES ? 'fail' : 'warn';
      return pageIssues([
        {
          outcome,
          message: `The page weighs ${mib(total)} (above ${outcome === 'fail' ? 'the 4 MiB median' : 'the 2.6 MiB target'}).`,
          evidence: `${mib(total)}: document ${w.bytes.toLocaleString('en-US')} bytes + ${counted} resources`,
          // Each heavy page is its own problem (its weight is its own): the page is the subject.
          subject: resourceSubject(o.url, snapshot.origin),
        },
      ]);
    });
  },
});

// ── PERF_RENDER_BLOCKING ─────────────────────────────────────────────────────────────────────────

/** More blocking stylesheets than this in the head warn (one request each before the first paint). */
export const MAX_BLOCKING_STYLESHEETS = 3;
const JS_TYPES =
  /^(|text\/javascript|application\/javascript|application\/x-javascript|text\/ecmascript|application\/ecmascript|module)$/;

function inHead(el: Element, hasHeadElement: boolean): boolean {
  return hasHeadElement ? hasAncestor(el, 'head') : !hasAncestor(el, 'body');
}

/**
 * A synchronous external script in the head (no async, defer, or type=module) fails: it blocks
 * parsing and rendering until downloaded and run. More than 3 render-blocking stylesheets (no
 * print-only media, not disabled) in the head warn: each is a request before the first paint.
 */
export const renderBlocking = pageAnalyzer('PERF_RENDER_BLOCKING', (p) => {
  if (!p.isHtml) return null;
  const hasHead = p.elements('head').length > 0;
  const issues: Issue[] = [];
  for (const s of p.elements('script')) {
    if (issues.length >= 20) break;
    if (attr(s, 'src') === undefined || !inHead(s, hasHead)) continue;
    const type = (attr(s, 'type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (!JS_TYPES.test(type) || type === 'module') continue;
    // nomodule scripts are skipped by every browser that supports modules.
    if (attr(s, 'async') !== undefined || attr(s, 'defer') !== undefined || attr(s, 'nomodule') !== undefined) continue;
    // The message names the script: sub-sites of one host load same-named scripts from their own paths.
    const script = resourceSubject(attr(s, 'src')!, p.url);
    issues.push({
      outcome: 'fail',
      message: `The script ${truncate(script, 100)} in the head loads synchronously (no async or defer) and blocks rendering.`,
      evidence: snippet(p, s),
      subject: `script ${script}`,
    });
  }
  const sheets = p.elements('link').filter((l) => {
    if (!(attr(l, 'rel') ?? '').toLowerCase().split(/\s+/).includes('stylesheet') || !inHead(l, hasHead)) return false;
    if (attr(l, 'disabled') !== undefined) return false;
    const media = (attr(l, 'media') ?? '').trim().toLowerCase();
    return !/^(print|speech)$/.test(media); // other media may match, so they block
  });
  if (sheets.length > MAX_BLOCKING_STYLESHEETS) {
    issues.push({
      outcome: 'warn',
      message: `The head loads ${sheets.length} render-blocking stylesheets (more than ${MAX_BLOCKING_STYLESHEETS}).`,
      evidence: truncate(
        sheets
          .slice(0, 4)
          .map((l) => snippet(p, l, 80))
          .join(' '),
        EVIDENCE_MAX,
      ),
      subject: 'stylesheets',
    });
  }
  return pageIssues(issues);
});

export const PERFORMANCE_SITE_ANALYZERS: readonly Analyzer[] = [ttfbSlow, cacheWeak, pageWeightHigh, renderBlocking];
