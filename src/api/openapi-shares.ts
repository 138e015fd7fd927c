import type { OpenApiParts } from './openapi-parts';

// Share links in the OpenAPI document (README "Share links"): their management under /v1; the public
// page and badge they point to live outside /v1 and take no key, so they are described, not listed.

export const SHARES_TAG = {
  name: 'Shares',
  description:
    "Share links (pro and up): a public page of an audit's report in the workspace's branding, at the link's url " +
    '(no API key, not indexed, nothing loaded from another site), with its badge at `{url}/badge.svg` (grade and score). ' +
    'A link may ask for a password first (5 guesses per 15 minutes per link, then 429 with Retry-After). Expired or ' +
    'revoked links answer 404, page and badge alike.',
};

export function sharePaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, auditIdParam } = p;
  return {
    '/audits/{audit_id}/shares': {
      post: {
        operationId: 'createShare',
        summary: 'Create a share link to the report of an audit (pro and up)',
        description:
          'The answer is the only one that carries the URL: only a digest of its token is kept. The page shows the audit as ' +
          'it is (its status while it runs), in the branding of the workspace and mode (PUT /branding).',
        parameters: [auditIdParam],
        requestBody: { required: false, ...json(ref('CreateShareRequest')) },
        responses: {
          '201': ok('The new link.', ref('CreatedShare')),
          ...errors('invalid_request', 'payload_too_large', 'audit_not_found', 'tier_required', ...common),
        },
      },
      get: {
        operationId: 'listShares',
        summary: 'The share links of an audit that were not revoked, newest first',
        parameters: [auditIdParam],
        responses: {
          '200': ok('The links, without URLs or passwords.', ref('ShareList')),
          ...errors('audit_not_found', 'tier_required', ...common),
        },
      },
    },
    '/shares/{share_id}': {
      delete: {
        operationId: 'revokeShare',
        summary: 'Revoke a share link: its page and badge answer 404 from now on',
        parameters: [p.idParam('share_id', 'share')],
        responses: { '204': { description: 'Revoked.' }, ...errors('share_not_found', 'tier_required', ...common) },
      },
    },
  };
}
