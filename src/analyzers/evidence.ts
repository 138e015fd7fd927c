import { truncate } from './parse';
import { headerValue, type HeaderMap } from './snapshot';
import { EVIDENCE_MAX } from './types';

/** Header names as customers write them in server configs (headers arrive lower-cased). */
const DISPLAY_NAMES: Record<string, string> = {
  'strict-transport-security': 'Strict-Transport-Security',
  'content-security-policy': 'Content-Security-Policy',
  'content-security-policy-report-only': 'Content-Security-Policy-Report-Only',
  'x-frame-options': 'X-Frame-Options',
  'x-content-type-options': 'X-Content-Type-Options',
  'referrer-policy': 'Referrer-Policy',
  'x-powered-by': 'X-Powered-By',
  'x-aspnet-version': 'X-AspNet-Version',
  'x-aspnetmvc-version': 'X-AspNetMvc-Version',
  'x-robots-tag': 'X-Robots-Tag',
  'content-encoding': 'Content-Encoding',
  'content-type': 'Content-Type',
  server: 'Server',
};

export function displayHeaderName(name: string): string {
  return DISPLAY_NAMES[name] ?? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());
}

/** `Name: value` as received, or `Name: (absent)`: the evidence of every header check. */
export function headerEvidence(headers: HeaderMap, name: string): string {
  const v = headerValue(headers, name);
  return truncate(`${displayHeaderName(name)}: ${v === undefined ? '(absent)' : v}`, EVIDENCE_MAX);
}
