import type { Element } from 'domhandler';
import { headerEvidence } from './evidence';
import { attr, metaHttpEquiv, snippet, truncate, type ParsedPage } from './parse';
import { headerValue, headerValues, type CrawlSnapshot } from './snapshot';
import { snapshotNow } from './security-transport';
import {
  EVIDENCE_MAX, errored, notApplicable, pageAnalyzer, pageIssues, siteAnalyzer, siteOutcome,
  type Analyzer, type Issue,
} from './types';

/** Security checks of page content, cookies, CORS and security.txt. */

// ── SEC_CSP_UNSAFE ───────────────────────────────────────────────────────────────────────────────

/** One enforced policy: directive name (lower-case) → source list as written. */
export type CspPolicy = Map<string, string[]>;

/** Parses a serialized policy (CSP3 §2.2.1): `;`-separated directives, the first of a name wins. */
export function parseCsp(text: string): CspPolicy {
  const policy: CspPolicy = new Map();
  for (const raw of text.split(';')) {
    const tokens = raw.trim().split(/\s+/).filter((t) => t !== '');
    if (tokens.length === 0) continue;
    const name = tokens[0]!.toLowerCase();
    if (!policy.has(name)) policy.set(name, tokens.slice(1));
  }
  return policy;
}

interface EnforcedPolicy {
  policy: CspPolicy;
  evidence: string;
}

/** Every enforced policy of the page: each CSP header (comma-separated policies) and each meta CSP. */
function enforcedPolicies(p: ParsedPage): EnforcedPolicy[] {
  const out: EnforcedPolicy[] = [];
  for (const header of headerValues(p.page.headers, 'content-security-policy')) {
    for (const text of header.split(',')) {
      if (text.trim() === '') continue;
      out.push({ policy: parseCsp(text), evidence: `Content-Security-Policy: ${text.trim()}` });
    }
  }
  for (const m of metaHttpEquiv(p, 'content-security-policy')) {
    const content = (attr(m, 'content') ?? '').trim();
    if (content !== '') out.push({ policy: parseCsp(content), evidence: `<meta http-equiv="Content-Security-Policy" content="${content}">` });
  }
  return out;
}

const lower = (list: readonly string[]) => list.map((s) => s.toLowerCase());

/** The unsafe script sources a policy allows (script-src, else default-src); [] when it is safe. */
export function scriptSourceProblems(policy: CspPolicy): string[] {
  const list = policy.get('script-src') ?? policy.get('default-src');
  const name = policy.has('script-src') ? 'script-src' : 'default-src';
  if (!list) return ['no script-src or default-src, so scripts may load from anywhere'];
  const src = lower(list);
  if (src.includes("'none'") && src.length === 1) return [];
  const hasNonceOrHash = src.some((s) => /^'(nonce|sha256|sha384|sha512)-/.test(s));
  const strictDynamic = src.includes("'strict-dynamic'");
  const problems: string[] = [];
  // CSP2+: 'unsafe-inline' is ignored when a nonce or hash is present.
  if (src.includes("'unsafe-inline'") && !hasNonceOrHash) problems.push(`${name} allows 'unsafe-inline'`);
  if (src.includes("'unsafe-eval'")) problems.push(`${name} allows 'unsafe-eval'`);
  // 'strict-dynamic' makes browsers ignore host and scheme sources.
  if (!strictDynamic) {
    if (src.includes('data:')) problems.push(`${name} allows data: URLs`);
    if (src.some((s) => s === 'http:' || s.startsWith('http://'))) problems.push(`${name} allows http: sources`);
    if (src.includes('*')) problems.push(`${name} allows any host (*)`);
  }
  return problems;
}

/** The object-src problem of a policy, if any ('none' directly or through default-src is fine). */
function objectSourceProblem(policy: CspPolicy): string | null {
  const obj = policy.get('object-src');
  if (obj) {
    const src = lower(obj);
    if (src.includes('*') || src.includes('data:') || src.some((s) => s === 'http:' || s.startsWith('http://'))) {
      return `object-src is permissive (${obj.join(' ')})`;
    }
    return null;
  }
  const def = policy.get('default-src');
  if (def && def.length === 1 && def[0]!.toLowerCase() === "'none'") return null;
  return "no object-src 'none'";
}

export const cspUnsafe = pageAnalyzer('SEC_CSP_UNSAFE', (p) => {
  if (!p.isHtml) return null;
  const policies = enforcedPolicies(p);
  if (policies.length === 0) return null; // SEC_CSP_MISSING covers it
  // Several enforced policies all apply: a source is allowed only when every policy allows it.
  const perPolicy = policies.map((e) => scriptSourceProblems(e.policy));
  let scriptProblems = perPolicy[0]!;
  for (const other of perPolicy.slice(1)) {
    scriptProblems = scriptProblems.filter((x) => other.some((y) => y.replace(/^\S+/, '') === x.replace(/^\S+/, '')));
  }
  const objectProblems = policies.map((e) => objectSourceProblem(e.policy));
  const objectProblem = objectProblems.every((o) => o !== null) ? objectProblems[0]! : null;
  const evidence = truncate(policies.map((e) => e.evidence).join(' | '), EVIDENCE_MAX);
  const issues: Issue[] = [];
  if (scriptProblems.length > 0) {
    issues.push({ outcome: 'fail', message: `The Content Security Policy does not stop injected scripts: ${scriptProblems.join('; ')}.`, evidence });
  }
  if (objectProblem) {
    issues.push({ outcome: 'warn', message: `The Content Security Policy does not restrict plugins: ${objectProblem}.`, evidence });
  }
  return pageIssues(issues);
});

// ── SEC_COOKIE_INSECURE ──────────────────────────────────────────────────────────────────────────

export interface ParsedCookie {
  name: string;
  attributes: Map<string, string>;
  /** The Set-Cookie line with the value redacted, for evidence. */
  redacted: string;
}

export function parseSetCookie(line: string): ParsedCookie | null {
  const parts = line.split(';');
  const pair = parts[0]!;
  const eq = pair.indexOf('=');
  if (eq === -1) return null;
  const name = pair.slice(0, eq).trim();
  if (name === '') return null;
  const attributes = new Map<string, string>();
  for (const raw of parts.slice(1)) {
    const a = raw.trim();
    if (a === '') continue;
    const i = a.indexOf('=');
    const key = (i === -1 ? a : a.slice(0, i)).trim().toLowerCase();
    const value = i === -1 ? '' : a.slice(i + 1).trim();
    if (!attributes.has(key)) attributes.set(key, value);
  }
  const value = pair.slice(eq + 1).trim();
  const shown = value === '' ? '' : '…';
  const redacted = truncate(`Set-Cookie: ${name}=${shown}${parts.slice(1).map((s) => `;${s}`).join('')}`, EVIDENCE_MAX);
  return { name, attributes, redacted };
}

/** Names of cookies that usually carry a session or credentials. CSRF tokens are meant to be script-readable. */
const SESSION_NAME = /sess|^sid$|[_.-]sid$|auth|token|jwt|login|remember/i;
const CSRF_NAME = /csrf|xsrf/i;

function isDeletion(c: ParsedCookie, now: number): boolean {
  const maxAge = c.attributes.get('max-age');
  if (maxAge !== undefined && /^-?\d+$/.test(maxAge) && Number(maxAge) <= 0) return true;
  const expires = c.attributes.get('expires');
  if (expires !== undefined) {
    const t = Date.parse(expires);
    if (Number.isFinite(t) && t < now) return true;
  }
  return false;
}

export function cookieIssues(line: string, https: boolean, now: number): Issue[] {
  const c = parseSetCookie(line);
  if (!c || isDeletion(c, now)) return [];
  const issues: Issue[] = [];
  const secure = c.attributes.has('secure');
  const name = `Cookie "${c.name}"`;
  if (https && !secure) issues.push({ outcome: 'fail', message: `${name} is set without the Secure attribute, so it can be sent over plain HTTP.`, evidence: c.redacted });
  if (SESSION_NAME.test(c.name) && !CSRF_NAME.test(c.name) && !c.attributes.has('httponly')) {
    issues.push({ outcome: 'fail', message: `${name} looks like a session cookie but lacks HttpOnly, so injected scripts can read it.`, evidence: c.redacted });
  }
  const sameSite = c.attributes.get('samesite');
  if (sameSite !== undefined) {
    const v = sameSite.toLowerCase();
    if (v === 'none' && !secure) {
      issues.push({ outcome: 'fail', message: `${name} has SameSite=None without Secure; browsers reject it.`, evidence: c.redacted });
    } else if (v !== 'none' && v !== 'lax' && v !== 'strict') {
      issues.push({ outcome: 'warn', message: `${name} has an invalid SameSite value "${sameSite}", which browsers ignore.`, evidence: c.redacted });
    }
  }
  const lowerName = c.name.toLowerCase();
  if (lowerName.startsWith('__host-') && (!secure || c.attributes.has('domain') || c.attributes.get('path') !== '/')) {
    issues.push({ outcome: 'warn', message: `${name} breaks the __Host- prefix rules (Secure, Path=/, no Domain); browsers reject it.`, evidence: c.redacted });
  } else if (lowerName.startsWith('__secure-') && !secure) {
    issues.push({ outcome: 'warn', message: `${name} uses the __Secure- prefix without Secure; browsers reject it.`, evidence: c.redacted });
  }
  return issues;
}

// Only deletion cookies need a date (to be skipped); a past Expires is recognised at any reference time.
export const cookieInsecure = pageAnalyzer('SEC_COOKIE_INSECURE', (p) => {
  const lines = headerValues(p.page.headers, 'set-cookie');
  if (lines.length === 0) return null;
  const https = p.url.startsWith('https://');
  return pageIssues(lines.flatMap((line) => cookieIssues(line, https, Date.now())));
});

// ── SEC_CORS_CREDENTIALED_ANY ────────────────────────────────────────────────────────────────────

export const corsCredentialedAny = siteAnalyzer('SEC_CORS_CREDENTIALED_ANY', (snapshot) => {
  const probe = snapshot.corsProbe;
  if (!probe) return notApplicable();
  if (!probe.ok) return errored();
  const { headers, originSent, url } = probe.facts;
  const allowOrigin = headerValue(headers, 'access-control-allow-origin')?.trim();
  const credentials = headerValue(headers, 'access-control-allow-credentials')?.trim().toLowerCase() === 'true';
  // "*" with credentials is refused by browsers, so only an echoed origin (or "null") is exploitable.
  const reflected = allowOrigin !== undefined && (allowOrigin === originSent || allowOrigin === 'null');
  if (!(reflected && credentials)) return siteOutcome('pass');
  return siteOutcome('fail', [{
    message: `A request with the foreign Origin ${originSent} was answered with Access-Control-Allow-Origin: ${allowOrigin} and Access-Control-Allow-Credentials: true.`,
    evidence: truncate(`Origin: ${originSent} → ${headerEvidence(headers, 'access-control-allow-origin')}; ${headerEvidence(headers, 'access-control-allow-credentials')}`, EVIDENCE_MAX),
    urls: [url],
  }]);
});

// ── helpers for URLs in markup ───────────────────────────────────────────────────────────────────

/** The document base URL: the first <base href>, resolved against the page URL. */
function baseUrl(p: ParsedPage): string {
  const base = p.elements('base').find((b) => attr(b, 'href') !== undefined);
  if (base) {
    try {
      return new URL(attr(base, 'href')!.trim(), p.url).href;
    } catch {
      /* invalid base: browsers fall back to the document URL */
    }
  }
  return p.url;
}

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
  const base = baseUrl(p);
  const pageOrigin = resolve(p.url, p.url)?.origin;
  const issues: Issue[] = [];
  for (const s of p.elements('script')) {
    const src = attr(s, 'src');
    if (src === undefined || src.trim() === '') continue;
    const trimmed = src.trim();
    const url = resolve(trimmed, base);
    if (!url) continue;
    if (trimmed.startsWith('//')) {
      issues.push({ outcome: 'fail', message: 'A script is loaded with a protocol-relative URL (//…), which can fall back to plain HTTP.', evidence: snippet(p, s) });
      continue;
    }
    // Same-origin scripts share the page's transport: on an http-only site that is
    // SEC_HTTPS_UNAVAILABLE's finding, not an integrity problem.
    if (url.protocol === 'http:' && url.origin !== pageOrigin) {
      issues.push({ outcome: 'fail', message: 'A script is loaded over plain http://.', evidence: snippet(p, s) });
      continue;
    }
    if (url.origin === pageOrigin || (url.protocol !== 'https:' && url.protocol !== 'http:')) continue;
    const integrity = (attr(s, 'integrity') ?? '').trim();
    if (integrity === '') {
      issues.push({ outcome: 'fail', message: `A script from ${url.host} is loaded without an integrity attribute.`, evidence: snippet(p, s) });
    } else if (!integrity.split(/\s+/).some((h) => SRI_HASH.test(h))) {
      issues.push({ outcome: 'fail', message: `A script from ${url.host} has an integrity attribute without a valid sha256/384/512 hash.`, evidence: snippet(p, s) });
    }
  }
  return pageIssues(issues);
});

// ── SEC_MIXED_CONTENT ────────────────────────────────────────────────────────────────────────────

/** Link relations that make the browser fetch the target as a subresource. */
const FETCHING_RELS = new Set(['stylesheet', 'icon', 'shortcut', 'apple-touch-icon', 'preload', 'modulepreload', 'manifest', 'mask-icon']);

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
  for (const el of p.elements('img')) { add(el, 'src'); addSrcset(el); }
  for (const el of p.elements('iframe')) add(el, 'src');
  for (const el of p.elements('audio')) add(el, 'src');
  for (const el of p.elements('video')) { add(el, 'src'); add(el, 'poster'); }
  for (const el of p.elements('source')) { add(el, 'src'); addSrcset(el); }
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
  const base = baseUrl(p);
  const upgraded = upgradesInsecureRequests(p);
  const issues: Issue[] = [];
  const seen = new Set<Element>();
  for (const { el, ref } of subresourceRefs(p)) {
    if (seen.has(el)) continue;
    const url = resolve(ref, base);
    if (url?.protocol !== 'http:') continue;
    seen.add(el);
    issues.push(upgraded
      ? { outcome: 'warn', message: `A <${el.name}> references ${url.href} over http://; upgrade-insecure-requests makes browsers fetch it over https:// instead.`, evidence: snippet(p, el) }
      : { outcome: 'fail', message: `The HTTPS page loads a <${el.name}> over http:// (${url.host}).`, evidence: snippet(p, el) });
  }
  return pageIssues(issues);
});

// ── SEC_SECURITY_TXT_MISSING ─────────────────────────────────────────────────────────────────────

export interface SecurityTxtFields {
  contact: string[];
  expires: string[];
}

/** RFC 9116 fields (names case-insensitive); PGP-signed files keep their fields in the signed text. */
export function parseSecurityTxt(body: string): SecurityTxtFields {
  const fields: SecurityTxtFields = { contact: [], expires: [] };
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const name = m[1]!.toLowerCase();
    if (name === 'contact') fields.contact.push(m[2]!.trim());
    else if (name === 'expires') fields.expires.push(m[2]!.trim());
  }
  return fields;
}

export const securityTxtMissing = siteAnalyzer('SEC_SECURITY_TXT_MISSING', (snapshot: CrawlSnapshot) => {
  const fetch = snapshot.securityTxt;
  if (!fetch) return notApplicable();
  if (fetch.kind === 'unreachable') return errored();
  const urls = [fetch.url];
  const type = (headerValue(fetch.headers, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  // A catch-all page answering 200 with HTML is not a security.txt.
  if (fetch.status < 200 || fetch.status > 299 || type === 'text/html') {
    return siteOutcome('fail', [{
      message: 'No security.txt is published at /.well-known/security.txt.',
      evidence: truncate(`GET ${fetch.url} → ${fetch.status}${type ? ` (${type})` : ''}`, EVIDENCE_MAX),
      urls,
    }]);
  }
  const fields = parseSecurityTxt(fetch.body);
  const firstLines = fetch.body.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')).slice(0, 4).join(' | ');
  const evidence = truncate(`${fetch.url}: ${firstLines || '(empty)'}`, EVIDENCE_MAX);
  if (fields.contact.length === 0) {
    return siteOutcome('fail', [{ message: 'security.txt has no Contact field, so researchers cannot tell how to report a vulnerability.', evidence, urls }]);
  }
  const problems: string[] = [];
  if (fields.expires.length === 0) problems.push('it has no Expires field');
  else if (fields.expires.length > 1) problems.push('it has several Expires fields');
  else {
    const t = Date.parse(fields.expires[0]!);
    if (!Number.isFinite(t)) problems.push(`its Expires value "${fields.expires[0]}" is not a date`);
    else if (t <= snapshotNow(snapshot)) problems.push(`it expired on ${fields.expires[0]}`);
  }
  if (!fetch.url.startsWith('https://')) problems.push('it is not served over HTTPS');
  if (problems.length === 0) return siteOutcome('pass');
  return siteOutcome('warn', [{ message: `security.txt is published but ${problems.join(', ')}.`, evidence, urls }]);
});

export const SECURITY_CONTENT_ANALYZERS: readonly Analyzer[] = [
  cspUnsafe, cookieInsecure, corsCredentialedAny, sriMissing, mixedContent, securityTxtMissing,
];
