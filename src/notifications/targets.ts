import { domainToASCII } from 'node:url';
import { ApiError } from '../errors';
import { OutboundBlockedError } from '../outbound/errors';
import type { CidrList } from '../outbound/policy';
import type { RefusalLog } from '../outbound/refusal';
import { resolveAllowed, type LookupAllFn } from '../outbound/resolve';
import { checkWebhookUrl } from '../outbound/url-policy';
import type { ChannelType } from './repository';

const MAX_ADDRESS = 254;
const MAX_LOCAL_PART = 64;
// One plain address: no display name, comments, quoting or second recipient (a comma) can ride along.
const LOCAL_PART = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A channel's target, checked for its type (docs/decisions.md, "Notification channels"): an e-mail
 * address for email; for slack and teams an incoming-webhook URL through the same outbound policy as
 * webhook URLs, and https, since the URL itself is the credential that posts to the channel. Plain
 * http is taken only to addresses the operator exempted from the outbound block (OUTBOUND_ALLOW_CIDRS:
 * a relay on its own network, a test receiver on loopback). Returns the target as it is stored.
 */
export async function checkChannelTarget(
  type: ChannelType,
  raw: string,
  allow: CidrList,
  opts: { lookup?: LookupAllFn; log?: RefusalLog } = {},
): Promise<string> {
  if (type === 'email') return checkEmailAddress(raw);
  const url = new URL(await checkWebhookUrl('target', raw, allow, opts));
  if (url.protocol !== 'https:' && !(await onExemptNetwork(url.hostname, allow, opts.lookup)))
    throw new ApiError(
      'invalid_request',
      `field target must be an https:// URL (${type === 'slack' ? 'Slack' : 'Teams'} incoming webhooks are)`,
    );
  return url.toString();
}

/** A single addr-spec (local@domain, the domain with a dot), its domain in ASCII (IDNs as punycode). */
export function checkEmailAddress(raw: string): string {
  const refuse = () => new ApiError('invalid_request', 'field target must be an e-mail address for type email');
  const at = raw.lastIndexOf('@');
  if (at <= 0 || raw.length > MAX_ADDRESS) throw refuse();
  const local = raw.slice(0, at);
  const domain = domainToASCII(raw.slice(at + 1));
  const labels = domain.split('.');
  const localOk =
    local.length <= MAX_LOCAL_PART && LOCAL_PART.test(local) && !local.startsWith('.') && !local.endsWith('.');
  if (!localOk || local.includes('..') || labels.length < 2 || !labels.every((label) => LABEL.test(label)))
    throw refuse();
  const address = `${local}@${domain}`;
  if (address.length > MAX_ADDRESS) throw refuse();
  return address;
}

/** Whether the host is reached only thanks to OUTBOUND_ALLOW_CIDRS (it resolves to no public address). */
async function onExemptNetwork(hostname: string, allow: CidrList, lookup?: LookupAllFn): Promise<boolean> {
  if (allow.length === 0) return false;
  try {
    await resolveAllowed(hostname, [], { lookup });
    return false;
  } catch (err) {
    return err instanceof OutboundBlockedError;
  }
}
