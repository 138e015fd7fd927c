/**
 * What a client is told when a host it named may not be contacted (a live audit's domain, a
 * webhook URL). A name that does not resolve and one that resolves only to blocked addresses get
 * the same words and no address, so refusals cannot be used to map internal DNS; the addresses
 * and the rule that refused each go to the server log instead.
 */
import { DnsResolutionError, OutboundBlockedError } from './errors';
import { logger } from '../observability/logger';

export const HOST_REFUSED = 'the host does not resolve, or resolves to an address that may not be contacted';

export type RefusalLog = (entry: { msg: string; host: string; kind: string; detail: string }) => void;

const logToProcessLog: RefusalLog = ({ msg, ...fields }) => logger.warn(fields, msg);

/**
 * The client-facing text for an error of resolveAllowed; anything else is rethrown, as it is no
 * refusal but a fault of ours.
 */
export function hostRefusal(err: unknown, log: RefusalLog = logToProcessLog): string {
  if (!(err instanceof OutboundBlockedError || err instanceof DnsResolutionError)) throw err;
  const detail = err instanceof OutboundBlockedError ? err.detail : err.message;
  log({ msg: 'outbound host refused', host: err.host, kind: err.kind, detail });
  return HOST_REFUSED;
}
