import type { Element } from 'domhandler';
import { attr, documentBaseUrl, snippet, type ParsedPage } from './parse';
import { enforcedPolicies } from './security-csp';
import { resourceSubject } from './subject';
import { pageAnalyzer, pageIssues, type Issue } from './types';

/** Subresources in markup: integrity of third-party scripts (SEC_SRI_MISSING) and mixed content (SEC_MIXED_CONTENT). */

// ── helpers for URLs in markup ───────────────────────────────────────────────────────────────────

function resolve(ref: string, base: string): URL | null {
  try {
    return new URL(ref.trim(), base);
  } catch {
    return null;
  }
}

// ── SEC_SRI_MISSING ──────────────────────────────────────────────────────────────────────────────

const SRI_HASH = /^(sha256|sha384|sha512)-[A-Za-z0-9+/_-]+={0,2}$/;

export const sriMissing = pageAnalyzer('SEC_SRI_MISSING', (p) => {
  if (!p.isHtml) return null;
  const base = documentBaseUrl(p);
  const pageOrigin = resolve(p.url, p.url)?.origin;
  const issues: Issue[] = [];
  for (const s of p.elements('script')) {
    const src = attr(s, 'src');
    if (src === undefined || src.trim() === '') continue;
    const trimmed = src.trim();
    const url = resolve(trimmed, base);
    if (!url) continue;
    if (trimmed.startsWith('//')) {
      issues.push({
        outcome: 'fail',
        message: 'A script is loaded with a protocol-relative URL (//…), which can fall back to plain HTTP.',
        evidence: snippet(p, s),
        subject: resourceSubject(url.href, p.url),
      });
      continue;
    }
    // Same-origin scripts share the page's transport: on an http-only site that is
    // SEC_HTTPS_UNAVAILABLE's finding, not an integrity problem.
    if (url.protocol === 'http:' && url.origin !== pageOrigin) {
      issues.push({
        outcome: 'fail',
        message: 'A script is loaded over plain http://.',
        evidence: snippet(p, s),
        subject: resourceSubject(url.href, p.url),
      });
      continue;
    }
    if (url.origin === pageOrigin || (url.protocol !== 'https:' && url.protocol !== 'http:')) continue;
    const integrity = (attr(s, 'integrity') ?? '').trim();
    if (integrity === '') {
      issues.push({
        outcome: 'fail',
        message: `A script from ${url.host} is loaded without an integrity attribute.`,
        evidence: snippet(p, s),
        subject: resourceSubject(url.href, p.url),
      });
    } else if (!integrity.split(/\s+/).some((h) => SRI_HASH.test(h))) {
      issues.push({
        outcome: 'fail',
        message: `A script from ${url.host} has an integrity attribute without a valid sha256/384/512 hash.`,
        evidence: snippet(p, s),
        subject: resourceSubject(url.href, p.url),
      });
    }
  }
  return pageIssues(issues);
});

// ── SEC_MIXED_CONTENT ────────────────────────────────────────────────────────────────────────────

/** Link relations that make the browser fetch the target as a subresource. */
const FETCHING_RELS = new Set([
  'stylesheet',
  'icon',
  'shortcut',
  'apple-touch-icon',
  'preload',
  'modulepreload',
  'manifest',
  'mask-icon',
]);

/** (element, URL) pairs of subresources a page loads. */
function subresourceRefs(p: ParsedPage): { el: Element; ref: string }[] {
  const out: { el: Element; ref: string }[] = [];
  const add = (el: Element, name: string) => {
    const v = attr(el, name);
    if (v !== undefined && v.trim() !== '') out.push({ el, ref: v });
  };
  const addSrcset = (el: Element) => {
    const v = attr(el, 'srcset');
    if (v === undefined) return;
    for (const candidate of v.split(',')) {
      const ref = candidate.trim().split(/\s+/)[0];
      if (ref) out.push({ el, ref });
    }
  };
  for (const el of p.elements('script')) add(el, 'src');
  for (const el of p.elements('link')) {
    const rels = (attr(el, 'rel') ?? '').toLowerCase().split(/\s+/);
    if (rels.some((r) => FETCHING_RELS.has(r))) add(el, 'href');
  }
  for (const el of p.elements('img')) {
    add(el, 'src');
    addSrcset(el);
  }
  for (const el of p.elements('iframe')) add(el, 'src');
  for (const el of p.elements('audio')) add(el, 'src');
  for (const el of p.elements('video')) {
    add(el, 'src');
    add(el, 'poster');
  }
  for (const el of p.elements('source')) {
    add(el, 'src');
    addSrcset(el);
  }
  for (const el of p.elements('track')) add(el, 'src');
  for (const el of p.elements('object')) add(el, 'data');
  for (const el of p.elements('embed')) add(el, 'src');
  return out;
}

function upgradesInsecureRequests(p: ParsedPage): boolean {
  return enforcedPolicies(p).some((e) => e.policy.has('upgrade-insecure-requests'));
}

export const mixedContent = pageAnalyzer('SEC_MIXED_CONTENT', (p) => {
  if (!p.isHtml || !p.url.startsWith('https://')) return null;
  const base = documentBaseUrl(p);
  const upgraded = upgradesInsecureRequests(p);
  const issues: Issue[] = [];
  const seen = new Set<Element>();
  for (const { el, ref } of subresourceRefs(p)) {
    if (seen.has(el)) continue;
    const url = resolve(ref, base);
    if (url?.protocol !== 'http:') continue;
    seen.add(el);
    issues.push(
      upgraded
        ? {
            outcome: 'warn',
            message: `A <${el.name}> references ${url.href} over http://; upgrade-insecure-requests makes browsers fetch it over https:// instead.`,
            evidence: snippet(p, el),
            subject: `${el.name} ${resourceSubject(url.href, p.url)}`,
          }
        : {
            outcome: 'fail',
            message: `The HTTPS page loads a <${el.name}> over http:// (${url.host}).`,
            evidence: snippet(p, el),
            subject: `${el.name} ${resourceSubject(url.href, p.url)}`,
          },
    );
  }
  return pageIssues(issues);
});
