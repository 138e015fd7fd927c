/** Anything that looks like an IPv4 or IPv6 address (mapped and bracketed forms too): refusals must not carry one. */
export const ADDRESS_PATTERN = /\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]{0,4}:[0-9a-f]{0,4}:[0-9a-f:.]*/i;
