import type { Element } from 'domhandler';
import { headerEvidence } from './evidence';
import { pageCss } from './page-css';
import { attr, snippet, truncate } from './parse';
import { headerValue, mediaType, type HeaderMap } from './snapshot';
import { elementSubject, resourceSubject } from './subject';
import {
  EVIDENCE_MAX,
  MAX_ISSUES_PER_PAGE,
  PAGE_PASS,
  pageAnalyzer,
  pageIssues,
  perPage,
  siteAnalyzer,
  type Analyzer,
  type Issue,
} from './types';

/** Performance checks that need no browser: transfer encoding and markup that causes layout shift. */

// ── PERF_COMPRESSION_MISSING ─────────────────────────────────────────────────────────────────────

/** Below this size compression gains too little to matter (Lighthouse ignores savings under 1.4 KiB). */
export const COMPRESSION_MIN_BYTES = 1024;
const COMPRESSED = new Set(['br', 'gzip', 'x-gzip', 'zstd']);

/** Media types that compress well: text/*, JavaScript, JSON, XML and SVG. */
export function isCompressibleType(type: string): boolean {
  return (
    type.startsWith('text/') ||
    type === 'application/javascript' ||
    type === 'application/x-javascript' ||
    type === 'application/ecmascript' ||
    type === 'application/json' ||
    type === 'application/xml' ||
    type === 'image/svg+xml' ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}

interface Response {
  url: string;
  status: number;
  headers: HeaderMap;
  bytes: number;
}

function compressionIssue(r: Response, origin: string): Issue | null | undefined {
  // undefined: not applicable to this response
  if (r.status < 200 || r.status > 299) return undefined;
  const type = mediaType(r.headers);
  if (!isCompressibleType(type)) return undefined;
  const encodings = (headerValue(r.headers, 'content-encoding') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (encodings.some((e) => COMPRESSED.has(e))) return null;
  if (r.bytes < COMPRESSION_MIN_BYTES) return undefined;
  return {
    outcome: 'fail',
    message: `A ${type} response of ${r.bytes.toLocaleString('en-US')} bytes is sent without br or gzip compression.`,
    evidence: truncate(
      `${headerEvidence(r.headers, 'content-encoding')}; ${headerEvidence(r.headers, 'content-type')}; ${r.bytes} bytes`,
      EVIDENCE_MAX,
    ),
    // Each response is its own problem: compressing one leaves the others' findings as they were.
    subject: resourceSubject(r.url, origin),
  };
}

export const compressionMissing = siteAnalyzer('PERF_COMPRESSION_MISSING', (snapshot, observed) => {
  // Documents and, once the crawler records them, subresources; each response is one unit.
  const units: Response[] = [
    ...observed.map((o) => ({ url: o.url, status: o.page.status, headers: o.page.headers, bytes: o.page.bytes })),
    ...(snapshot.resources ?? []),
  ];
  const byUrl = new Map(units.map((u) => [u.url, u]));
  return perPage([...byUrl.values()], (r) => {
    const issue = compressionIssue(r, snapshot.origin);
    if (issue === undefined) return null;
    return issue === null ? PAGE_PASS : pageIssues([issue]);
  });
});

// ── PERF_IMG_UNSIZED ─────────────────────────────────────────────────────────────────────────────

/** Lighthouse unsized-images: explicit width and height attributes, or both (or aspect-ratio) in inline CSS. */
export function imgIsSized(img: Element): boolean {
  const w = (attr(img, 'width') ?? '').trim();
  const h = (attr(img, 'height') ?? '').trim();
  if (w !== '' && h !== '' && w !== 'auto' && h !== 'auto') return true;
  const style = (attr(img, 'style') ?? '').toLowerCase();
  if (style === '') return false;
  const has = (prop: string) => new RegExp(`(^|;|\\s)${prop}\\s*:\\s*(?!auto)[^;]+`).test(style);
  return has('aspect-ratio') || ((w !== '' || has('width')) && (h !== '' || has('height')));
}

/** Names the image by its address, so that findings on different images read differently. */
function unsizedMessage(img: Element, pageUrl: string): string {
  const src = (attr(img, 'src') ?? '').trim();
  if (src === '' || src.startsWith('data:')) return 'An image has no width and height.';
  return `The image ${truncate(resourceSubject(src, pageUrl), 100)} has no width and height.`;
}

export const imgUnsized = pageAnalyzer('PERF_IMG_UNSIZED', (p) => {
  if (!p.isHtml) return null;
  const imgs = p.elements('img');
  if (imgs.length === 0) return null;
  const issues: Issue[] = [];
  for (const img of imgs) {
    if (issues.length >= MAX_ISSUES_PER_PAGE) break;
    // Sized by a <style> rule counts as sized; an image the site's CSS hides causes no layout shift.
    if (!imgIsSized(img) && !pageCss(p).isSizedByCss(img) && !pageCss(p).isHidden(img))
      issues.push({
        outcome: 'fail',
        message: unsizedMessage(img, p.url),
        evidence: snippet(p, img),
        subject: elementSubject(img, p.url),
      });
  }
  return issues.length === 0 ? PAGE_PASS : pageIssues(issues);
});

export const PERFORMANCE_PAGE_ANALYZERS: readonly Analyzer[] = [compressionMissing, imgUnsized];
