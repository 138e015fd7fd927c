/**
 * The errors domain code throws and the API answers with: every error code with its HTTP status,
 * when it happens and what to do, and the `ApiError` class carrying one. A leaf module, so accounts,
 * audits, reports and webhooks refuse a request without depending on the HTTP layer; the error
 * reference page (docs_url) and the OpenAPI document are generated from the catalog.
 */
export const ERROR_CATALOG = {
  invalid_domain: {
    status: 400,
    when: 'The domain is malformed (missing protocol, path, credentials, bad host) or, for live audits, does not resolve to a public address.',
    action: 'Fix the domain: an absolute http:// or https:// URL naming a public host.',
  },
  invalid_request: {
    status: 400,
    when: 'Malformed request: missing or invalid field or query parameter (control characters, an invalid cursor, a limit that is not a whole number from 1 to 200), wrong content type, JSON parse error, an Idempotency-Key reused with another body, or a request that is not valid HTTP (header blocks over 16 KiB are HTTP 431, an `Expect` other than 100-continue HTTP 417).',
    action: 'Fix the request; the message names the offending field.',
  },
  invalid_api_key: {
    status: 401,
    when: 'The Authorization header is missing, malformed, or carries an unknown or revoked key.',
    action: 'Check the header (Authorization: Bearer svc_live_… or svc_test_…); create a new key if needed.',
  },
  tier_required: {
    status: 403,
    when: 'The feature needs a higher tier (webhooks, PDF reports, monitored sites and share links: pro; IP allowlists: team; an audit tier above the account tier).',
    action: 'Upgrade; the message names the minimum tier.',
  },
  ip_not_allowed: {
    status: 403,
    when: "The request comes from an address outside the key's IP allowlist.",
    action: "Call from an allowed address or change the key's allowlist.",
  },
  invalid_signature: {
    status: 403,
    when: 'A report link whose signature does not match: altered, truncated, made for another audit, or signed with a key that was revoked.',
    action: 'Request a fresh link with GET /audits/{audit_id}/pdf.',
  },
  link_expired: {
    status: 403,
    when: 'A report link used after its expiry (links are valid 60 minutes).',
    action: 'Request a fresh link with GET /audits/{audit_id}/pdf.',
  },
  not_found: { status: 404, when: 'No such route.', action: 'Check the method and path against the OpenAPI document.' },
  audit_not_found: {
    status: 404,
    when: 'No audit with that id in this workspace and environment (other workspace, never existed, or pruned).',
    action: 'Check the id and the key you use.',
  },
  webhook_not_found: {
    status: 404,
    when: 'No webhook with that id in this workspace and environment.',
    action: 'Check the id.',
  },
  delivery_not_found: { status: 404, when: 'No delivery with that id for this webhook.', action: 'Check the ids.' },
  share_not_found: {
    status: 404,
    when: 'No share link with that id in this workspace and environment, or it was already revoked.',
    action: 'Check the id (GET /audits/{audit_id}/shares lists the links of an audit).',
  },
  notification_channel_not_found: {
    status: 404,
    when: 'No notification channel with that id in this workspace and environment.',
    action: 'Check the id and the key you use (GET /notification-channels lists them).',
  },
  site_not_found: {
    status: 404,
    when: 'No monitored site with that id in this workspace and environment.',
    action: 'Check the id and the key you use (GET /sites lists them).',
  },
  finding_not_found: {
    status: 404,
    when: 'The completed audit has no finding with that id (GET /audits/{audit_id}/findings/{finding_id}/urls), or triage of a fingerprint no completed audit of the site has reported.',
    action:
      "Use a finding id from the audit's findings, or a fingerprint from the findings of one of the site's audits.",
  },
  site_limit_reached: {
    status: 403,
    when: 'The account already has as many monitored sites in this environment as its tier allows (pro 10, team 50), or a site paused by a downgrade would exceed it again.',
    action: 'Delete a site or upgrade; the message names the limit.',
  },
  site_already_exists: {
    status: 409,
    when: 'This workspace already monitors that domain in this environment.',
    action: 'Change the existing site (the message names it) with PATCH /sites/{site_id}.',
  },
  method_not_allowed: {
    status: 405,
    when: 'The route exists but not with this method; the Allow header lists the methods it takes.',
    action: 'Use one of the allowed methods.',
  },
  redelivery_window_expired: {
    status: 409,
    when: 'Manual redelivery is possible for 7 days after the original event.',
    action: 'Fetch the audit with GET /audits/{id} instead.',
  },
  webhook_disabled: {
    status: 409,
    when: 'The webhook was disabled after every delivery to it failed for days (WEBHOOK_DISABLE_AFTER_MS): nothing is sent to it, not even a redelivery or a recovery.',
    action:
      'Fix the endpoint (POST /webhooks/{webhook_id}/test checks it), then PATCH /webhooks/{webhook_id} {"status": "enabled"}.',
  },
  payload_too_large: { status: 413, when: 'The request body is over 64 KiB.', action: 'Send a smaller body.' },
  audit_quota_exceeded: {
    status: 429,
    when: "The account's monthly audit quota is used up. Retrieval calls keep working.",
    action: 'Wait until X-RateLimit-Reset or upgrade.',
  },
  burst_limit_exceeded: {
    status: 429,
    when: 'More than 10 live audits triggered within 60 seconds.',
    action: 'Wait the Retry-After seconds and retry.',
  },
  retrieval_limit_exceeded: {
    status: 429,
    when: 'More than 100 requests a minute on non-trigger endpoints for this workspace.',
    action: 'Wait the Retry-After seconds and retry.',
  },
  too_many_failed_authentications: {
    status: 429,
    when: 'Too many requests with a malformed, unknown or revoked API key from this address within 60 seconds (60 by default). Keys this API instance recently accepted keep working.',
    action: 'Fix the key, then wait the Retry-After seconds.',
  },
  internal_error: {
    status: 500,
    when: 'Unexpected server error.',
    action: 'Retry with exponential backoff; quote the request_id to support.',
  },
  audit_provider_unavailable: {
    status: 503,
    when: 'A required upstream (the audit engine or a data provider) is unavailable; nothing was stored or charged.',
    action: 'Retry later.',
  },
  service_unavailable: {
    status: 503,
    when: 'GET /healthz or /readyz: a part of the service (Temporal, a worker, the database) is down or restarting; `components` names the state of each. Reads of stored audits keep working meanwhile.',
    action: 'Retry later: under npm start every part is restarted by itself.',
  },
} as const satisfies Record<string, { status: number; when: string; action: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** An error the API answers with its envelope; anything else thrown becomes internal_error. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.status = status ?? ERROR_CATALOG[code].status;
  }
}
