import type { Config } from '../config';
import { ApiError } from '../errors';
import { resolveAllowed } from '../outbound/resolve';
import { hostRefusal } from '../outbound/refusal';
import { InvalidDomainError, normalizeDomain } from './domain';

/** A domain as a client sent it (an audit's or a monitored site's), or `invalid_domain` saying why not. */
export function parseDomainInput(raw: string): { origin: string; host: string } {
  try {
    return normalizeDomain(raw);
  } catch (err) {
    if (err instanceof InvalidDomainError) throw new ApiError('invalid_domain', err.message);
    throw err;
  }
}

/** Live audits (and live sites) of hosts that do not resolve to an allowed address are refused before anything is stored. */
export async function checkAuditable(host: string, config: Config): Promise<void> {
  try {
    await resolveAllowed(host, config.outboundAllow);
  } catch (err) {
    throw new ApiError('invalid_domain', `domain cannot be audited: ${hostRefusal(err)}`);
  }
}
