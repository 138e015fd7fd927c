import { auditJsonSchema, findingSchema } from '../schemas/audit';
import {
  createWebhookBodySchema,
  deliverySchema,
  webhookSchema,
  auditListSchema,
  errorEnvelopeSchema,
  listAuditsQuerySchema,
  statusEnvelopeSchema,
  triggerAuditBodySchema,
  triggerAuditResponseSchema,
  usageSchema,
} from '../schemas/api';
import { ERROR_CATALOG, type ErrorCode } from './error-catalog';

/** The OpenAPI 3.1 document, generated from the same JSON Schemas ajv validates with. */
export function buildOpenApi(serverUrl: string): object {
  const components = {
    Audit: auditJsonSchema,
    Finding: findingSchema,
    TriggerAuditRequest: triggerAuditBodySchema,
    TriggerAuditResponse: triggerAuditResponseSchema,
    AuditStatusEnvelope: statusEnvelopeSchema,
    AuditList: auditListSchema,
    Usage: usageSchema,
    Webhook: webhookSchema,
    CreateWebhookRequest: createWebhookBodySchema,
    Delivery: deliverySchema,
    Error: errorEnvelopeSchema,
  };
  const schemas = Object.fromEntries(Object.entries(components).map(([name, schema]) => [name, withoutId(schema)]));
  const ref = (name: keyof typeof components) => ({ $ref: `#/components/schemas/${name}` });
  const json = (schema: object) => ({ content: { 'application/json': { schema } } });
  const errors = (...codes: ErrorCode[]) =>
    Object.fromEntries(
      [...new Set(codes.map((code) => ERROR_CATALOG[code].status))].map((status) => [
        String(status),
        { description: codes.filter((c) => ERROR_CATALOG[c].status === status).join(', '), ...json(ref('Error')) },
      ]),
    );
  const common: ErrorCode[] = ['invalid_api_key', 'ip_not_allowed', 'retrieval_limit_exceeded', 'internal_error'];
  const auditIdParam = { name: 'audit_id', in: 'path', required: true, schema: { type: 'string' } };
  const rateHeaders = {
    'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Monthly audit quota of the tier.' },
    'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Audits left this period.' },
    'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix seconds of the next quota reset.' },
    'X-Request-Id': { schema: { type: 'string' } },
  };
  const ok = (description: string, schema: object) => ({ description, headers: rateHeaders, ...json(schema) });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Domain Audit API',
      version: 'v1',
      description:
        'Audit a website (security, SEO, performance, accessibility, DNS and e-mail hygiene). Keys starting with svc_test_ ' +
        'return deterministic synthetic audits and consume no quota; svc_live_ keys run real crawls.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_live_… or svc_test_… API key' } },
    },
    paths: {
      '/audits': {
        post: {
          operationId: 'triggerAudit',
          summary: 'Trigger an audit',
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
          requestBody: { required: true, ...json(ref('TriggerAuditRequest')) },
          responses: {
            '202': ok('Accepted; poll GET /audits/{audit_id} or wait for the webhook.', ref('TriggerAuditResponse')),
            ...errors('invalid_domain', 'invalid_request', 'payload_too_large', 'tier_required', 'audit_quota_exceeded', 'burst_limit_exceeded', 'audit_provider_unavailable', ...common),
          },
        },
        get: {
          operationId: 'listAudits',
          summary: 'List audits of the workspace, newest first',
          parameters: Object.entries(listAuditsQuerySchema.properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema })),
          responses: { '200': ok('A page of audit summaries.', ref('AuditList')), ...errors('invalid_request', ...common) },
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
      '/webhooks': {
        post: {
          operationId: 'createWebhook',
          summary: 'Configure a webhook (pro and up); the secret is returned only here',
          requestBody: { required: true, ...json(ref('CreateWebhookRequest')) },
          responses: { '201': ok('Created.', ref('Webhook')), ...errors('invalid_request', 'payload_too_large', 'tier_required', ...common) },
        },
        get: {
          operationId: 'listWebhooks',
          summary: 'List webhooks (never the secret)',
          responses: { '200': ok('A page of webhooks.', { type: 'object', properties: { data: { type: 'array', items: ref('Webhook') }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } } }), ...errors('tier_required', ...common) },
        },
      },
      '/webhooks/{webhook_id}': {
        delete: {
          operationId: 'deleteWebhook',
          summary: 'Remove a webhook: later events are not POSTed to it',
          parameters: [{ name: 'webhook_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'Removed.' }, ...errors('webhook_not_found', 'tier_required', ...common) },
        },
      },
      '/webhooks/{webhook_id}/deliveries': {
        get: {
          operationId: 'listDeliveries',
          summary: 'The delivery log: one entry per delivery with every attempt',
          parameters: [{ name: 'webhook_id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': ok('A page of deliveries.', { type: 'object', properties: { data: { type: 'array', items: ref('Delivery') }, has_more: { type: 'boolean' }, next_cursor: { type: ['string', 'null'] } } }), ...errors('webhook_not_found', 'tier_required', ...common) },
        },
      },
      '/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': {
        post: {
          operationId: 'redeliver',
          summary: 'Manual redelivery (within 7 days of the event); the same redeliver signal operators send with the Temporal CLI',
          parameters: [
            { name: 'webhook_id', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'delivery_id', in: 'path', required: true, schema: { type: 'string' } },
          ],
          responses: { '202': ok('Redelivery requested.', { type: 'object' }), ...errors('webhook_not_found', 'delivery_not_found', 'redelivery_window_expired', 'tier_required', ...common) },
        },
      },
      '/usage': {
        get: { operationId: 'getUsage', summary: 'Current period usage', responses: { '200': ok('Usage.', ref('Usage')), ...errors(...common) } },
      },
    },
  };
}

function withoutId(schema: object): object {
  const { $id: _id, ...rest } = schema as { $id?: string };
  return rest;
}
