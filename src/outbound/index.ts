/** Public surface of outbound HTTP: policy, resolution, the shared client and its errors. */
export * from './errors';
export {
  parseCidrList,
  parseCidr,
  parseCidrSetting,
  isAddressAllowed,
  type CidrList,
  type CidrEntry,
  type AddressVerdict,
} from './policy';
export { hostRefusal, HOST_REFUSED, type RefusalLog } from './refusal';
export { resolveAllowed, type LookupAllFn, type LookupAddress, type ResolvedAddress } from './resolve';
export { outboundRequest, DEFAULT_USER_AGENT, type OutboundRequestOptions, type OutboundResponse } from './client';
export { followRedirects, type FollowRedirectsOptions, type FollowRedirectsResult } from './redirects';
export { closeOutboundAgents } from './pinned-agents';
export type { TlsFacts, TlsCertFacts } from './tls-facts';
export { checkWebhookUrl } from './url-policy';
