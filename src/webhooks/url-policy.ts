import { ApiError } from '../api/api-error';
import type { CidrList } from '../outbound/policy';
import { resolveAllowed } from '../outbound/resolve';

/**
 * A webhook URL (configured or a trigger's webhook_url override) must be absolute http(s) without
 * credentials and resolve to an address the outbound policy allows — the same rule as crawling.
 */
export async function checkWebhookUrl(field: string, raw: string, allow: CidrList): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError('invalid_request', `field ${field} must be an absolute http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('invalid_request', `field ${field} must use http:// or https://, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new ApiError('invalid_request', `field ${field} must not contain credentials`);
  try {
    await resolveAllowed(url.hostname, allow);
  } catch (err) {
    throw new ApiError('invalid_request', `field ${field} cannot receive webhooks: ${(err as Error).message}`);
  }
  return url.toString();
}
