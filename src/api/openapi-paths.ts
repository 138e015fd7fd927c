import { listAuditsQuerySchema } from '../schemas/api';
import type { OpenApiParts } from './openapi-parts';

// The paths of the OpenAPI document, by resource; openapi.ts puts them together.

/** Triggering, listing and reading audits. */
export function auditPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, auditIdParam } = p;
  return {
    '/audits': {
      post: {
        operationId: 'triggerAudit',
        summary: 'Trigger an audit',
        parameters: [
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } },
        ],
        requestBody: { required: true, ...json(ref('TriggerAuditRequest')) },
        responses: {
          '202': ok('Accepted; poll GET /audits/{audit_id} or wait for the webhook.', ref('TriggerAuditResponse')),
          ...errors(
            'invalid_domain',
            'invalid_request',
            'payload_too_large',
            'tier_required',
            'audit_quota_exceeded',
            'burst_limit_exceeded',
            'audit_provider_unavailable',
            ...common,
          ),
        },
      },
      get: {
        operationId: 'listAudits',
        summary: 'List audits of the workspace, newest first',
        parameters: Object.entries(listAuditsQuerySchema.properties).map(([name, schema]) => ({
          name,
          in: 'query',
          required: false,
          schema,
        })),
        responses: {
          '200': ok('A page of audit summaries.', ref('AuditList')),
          ...errors('invalid_request', ...common),
        },
      },
    },
    '/audits/{audit_id}': {
      get: {
        operationId: 'getAudit',
        summary: 'Fetch one audit: the audit JSON when completed, else a status envelope',
        parameters: [auditIdParam],
        responses: {
          '200': ok('Audit JSON or status envelope.', { oneOf: [ref('Audit'), ref('AuditStatusEnvelope')] }),
          ...errors('audit_not_found', ...common),
        },
      },
    },
    '/audits/{audit_id}/findings': {
      get: {
        operationId: 'getAuditFindings',
        summary: 'Only the findings array of a completed audit (status envelope while not complete)',
        parameters: [auditIdParam],
        responses: {
          '200': ok('Findings.', { oneOf: [{ type: 'array', items: ref('Finding') }, ref('AuditStatusEnvelope')] }),
          ...errors('audit_not_found', ...common),
        },
      },
    },
  };
}

/** The PDF report: its signed link, and the download behind it. */
export function reportPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, auditIdParam, rateHeaders } = p;
  return {
    '/audits/{audit_id}/pdf': {
      get: {
        operationId: 'getAuditReport',
        summary: 'Signed link (valid 60 minutes) to the white-label PDF report of a completed audit (pro and up)',
        description:
          'Reports are rendered once per audit and branding, in the background (live audits as soon as they complete). When the PDF ' +
          'exists the link comes at once; otherwise the render is started and awaited for up to 10 seconds, then 202. A status ' +
          'envelope answers while the audit itself is not complete. Test keys get a sample report built from the synthetic audit.',
        parameters: [auditIdParam],
        responses: {
          '200': ok('The signed link, or the audit status envelope while the audit is not complete.', {
            oneOf: [ref('ReportLink'), ref('AuditStatusEnvelope')],
          }),
          '202': {
            description: 'Still rendering; retry after the Retry-After seconds.',
            headers: { ...rateHeaders, 'Retry-After': { schema: { type: 'integer' } } },
            ...json(ref('ReportRendering')),
          },
          ...errors('audit_not_found', 'tier_required', ...common),
        },
      },
    },
    '/reports/{audit_id}.pdf': {
      get: {
        operationId: 'downloadReport',
        summary: 'The PDF behind a signed link; no API key (the signature is the credential)',
        security: [],
        parameters: [
          auditIdParam,
          { name: 'expires', in: 'query', required: true, schema: { type: 'integer' }, description: 'Unix seconds.' },
          {
            name: 'key',
            in: 'query',
            required: true,
            schema: { type: 'string' },
            description: 'Id of the signing key.',
          },
          {
            name: 'signature',
            in: 'query',
            required: true,
            schema: { type: 'string' },
            description: 'base64url HMAC-SHA256 of the audit id and expiry.',
          },
          {
            name: 'If-None-Match',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'The ETag of a copy already held: 304 when it is still the report.',
          },
        ],
        responses: {
          '200': {
            description: 'The report, with its ETag.',
            content: { 'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } } },
          },
          '304': { description: 'Not modified: If-None-Match names this report (the signature is checked first).' },
          ...errors('invalid_signature', 'link_expired', 'audit_not_found'),
        },
      },
    },
  };
}

/** White-label branding of the reports. */
export function brandingPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common } = p;
  return {
    '/branding': {
      get: {
        operationId: 'getBranding',
        summary: 'White-label branding of the reports of this workspace and mode (pro and up)',
        responses: {
          '200': ok('The branding; every field null when none is set.', ref('Branding')),
          ...errors('tier_required', ...common),
        },
      },
      put: {
        operationId: 'putBranding',
        summary: 'Replace the branding; reports are re-rendered with it when next requested',
        requestBody: { required: true, ...json(ref('PutBrandingRequest')) },
        responses: {
          '200': ok('The branding now in force.', ref('Branding')),
          ...errors('invalid_request', 'payload_too_large', 'tier_required', ...common),
        },
      },
      delete: {
        operationId: 'deleteBranding',
        summary: 'Back to the neutral, unbranded report',
        responses: { '204': { description: 'Cleared.' }, ...errors('tier_required', ...common) },
      },
    },
  };
}

/** Quota usage of the current period. */
export function usagePaths(p: OpenApiParts): Record<string, object> {
  const { ref, errors, ok, common } = p;
  return {
    '/usage': {
      get: {
        operationId: 'getUsage',
        summary: 'Current period usage',
        responses: { '200': ok('Usage.', ref('Usage')), ...errors(...common) },
      },
    },
  };
}
