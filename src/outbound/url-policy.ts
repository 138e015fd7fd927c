import { ApiError } from '../errors';
import type { CidrList } from './policy';
import { hostRefusal, type RefusalLog } from './refusal';
import { resolveAllowed, type LookupAllFn } from './resolve';

/**
 * A webhook URL (configured or a trigger's webhook_url override) must be absolute http(s) without
 * credentials, name a host with a domain (no single-label intranet names) and resolve to an
 * address the outbound policy allows — the same rule as crawling. A refusal says no more than
 * live audits do (refusal.ts).
 */
export async function checkWebhookUrl(
  field: string,
  raw: string,
  allow: CidrList,
  opts: { lookup?: LookupAllFn; log?: RefusalLog } = {},
): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid_request', `field ${field} must be an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('invalid_request', `field ${field} must use http:// or https://, not ${url.protocol}`);
  }
  if (url.username || url.password)
    throw new ApiError('invalid_request', `field ${field} must not contain credentials`);
  if (isSingleLabel(url.hostname)) {
    throw new ApiError(
      'invalid_request',
      `field ${field} must name a host with a domain, e.g. https://hooks.example.com/…`,
    );
  }
  try {
    await resolveAllowed(url.hostname, allow, { lookup: opts.lookup });
  } catch (err) {
    throw new ApiError('invalid_request', `field ${field} cannot receive webhooks: ${hostRefusal(err, opts.log)}`);
  }
  return url.toString();
}

/**
 * "intranet" or "intranet." — a name only a local resolver or search domain can answer. WHATWG
 * hostnames of IPv4 literals always have dots and IPv6 literals keep their brackets.
 */
function isSingleLabel(hostname: string): boolean {
  // A trailing dot (the root) is no label separator.
  return !hostname.startsWith('[') && !hostname.slice(0, -1).includes('.');
}
