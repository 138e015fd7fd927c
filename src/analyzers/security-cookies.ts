import { truncate } from './parse';
import { headerValues } from './snapshot';
import { EVIDENCE_MAX, pageAnalyzer, pageIssues, type Issue } from './types';

/** SEC_COOKIE_INSECURE: Set-Cookie attributes (Secure, HttpOnly, SameSite, cookie name prefixes). */

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
  const redacted = truncate(
    `Set-Cookie: ${name}=${shown}${parts
      .slice(1)
      .map((s) => `;${s}`)
      .join('')}`,
    EVIDENCE_MAX,
  );
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

function cookieIssues(line: string, https: boolean, now: number): Issue[] {
  const c = parseSetCookie(line);
  if (!c || isDeletion(c, now)) return [];
  const issues: Issue[] = [];
  const secure = c.attributes.has('secure');
  const name = `Cookie "${c.name}"`;
  if (https && !secure)
    issues.push({
      outcome: 'fail',
      message: `${name} is set without the Secure attribute, so it can be sent over plain HTTP.`,
      evidence: c.redacted,
      subject: `${c.name} secure`,
    });
  if (SESSION_NAME.test(c.name) && !CSRF_NAME.test(c.name) && !c.attributes.has('httponly')) {
    issues.push({
      outcome: 'fail',
      message: `${name} looks like a session cookie but lacks HttpOnly, so injected scripts can read it.`,
      evidence: c.redacted,
      subject: `${c.name} httponly`,
    });
  }
  const sameSite = c.attributes.get('samesite');
  if (sameSite !== undefined) {
    const v = sameSite.toLowerCase();
    if (v === 'none' && !secure) {
      issues.push({
        outcome: 'fail',
        message: `${name} has SameSite=None without Secure; browsers reject it.`,
        evidence: c.redacted,
        subject: `${c.name} samesite`,
      });
    } else if (v !== 'none' && v !== 'lax' && v !== 'strict') {
      issues.push({
        outcome: 'warn',
        message: `${name} has an invalid SameSite value "${sameSite}", which browsers ignore.`,
        evidence: c.redacted,
        subject: `${c.name} samesite`,
      });
    }
  }
  const lowerName = c.name.toLowerCase();
  if (lowerName.startsWith('__host-') && (!secure || c.attributes.has('domain') || c.attributes.get('path') !== '/')) {
    issues.push({
      outcome: 'warn',
      message: `${name} breaks the __Host- prefix rules (Secure, Path=/, no Domain); browsers reject it.`,
      evidence: c.redacted,
      subject: `${c.name} prefix`,
    });
  } else if (lowerName.startsWith('__secure-') && !secure) {
    issues.push({
      outcome: 'warn',
      message: `${name} uses the __Secure- prefix without Secure; browsers reject it.`,
      evidence: c.redacted,
      subject: `${c.name} prefix`,
    });
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
