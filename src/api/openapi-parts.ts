import { auditJsonSchema, findingSchema } from '../schemas/audit';
import {
  createWebhookBodySchema,
  pageQuerySchema,
  deliverySchema,
  webhookSchema,
  auditListSchema,
  errorEnvelopeSchema,
  statusEnvelopeSchema,
  triggerAuditBodySchema,
  triggerAuditResponseSchema,
  usageSchema,
  brandingSchema,
  putBrandingBodySchema,
  reportLinkSchema,
  reportRenderingSchema,
} from '../schemas/api';
import {
  auditFailedEventSchema,
  auditRetriedEventSchema,
  siteRegressedEventSchema,
  webhookDisabledEventSchema,
  webhookTestEventSchema,
} from '../schemas/webhook-events';
import {
  patchWebhookBodySchema,
  recoverBodySchema,
  recoverResponseSchema,
  rotateSecretBodySchema,
  rotateSecretResponseSchema,
  webhookTestResultSchema,
} from '../schemas/api-webhooks';
import { errorExample } from './openapi-examples';
import {
  createSiteBodySchema,
  patchSiteBodySchema,
  putTriageBodySchema,
  siteHistorySchema,
  siteListSchema,
  siteRunListSchema,
  siteSchema,
  triageSchema,
} from '../schemas/api-sites';
import { auditPageListSchema, findingUrlListSchema } from '../schemas/api-pages';
import { createdShareSchema, createShareBodySchema, shareListSchema, shareSchema } from '../schemas/api-shares';
import {
  createNotificationChannelBodySchema,
  notificationChannelListSchema,
  notificationChannelSchema,
} from '../schemas/api-notifications';
import { ID_PATTERNS } from '../ids';
import { ERROR_CATALOG, type ErrorCode } from '../errors';

/** The named schemas of the OpenAPI document: the same JSON Schemas ajv validates with. */
const COMPONENTS = {
  Audit: auditJsonSchema,
  Finding: findingSchema,
  TriggerAuditRequest: triggerAuditBodySchema,
  TriggerAuditResponse: triggerAuditResponseSchema,
  AuditStatusEnvelope: statusEnvelopeSchema,
  AuditList: auditListSchema,
  AuditPageList: auditPageListSchema,
  FindingUrlList: findingUrlListSchema,
  Usage: usageSchema,
  Webhook: webhookSchema,
  CreateWebhookRequest: createWebhookBodySchema,
  Delivery: deliverySchema,
  PatchWebhookRequest: patchWebhookBodySchema,
  RotateSecretRequest: rotateSecretBodySchema,
  RotateSecretResponse: rotateSecretResponseSchema,
  WebhookTestResult: webhookTestResultSchema,
  RecoverRequest: recoverBodySchema,
  RecoverResponse: recoverResponseSchema,
  ReportLink: reportLinkSchema,
  ReportRendering: reportRenderingSchema,
  Branding: brandingSchema,
  PutBrandingRequest: putBrandingBodySchema,
  Error: errorEnvelopeSchema,
  AuditFailedEvent: auditFailedEventSchema,
  AuditRetriedEvent: auditRetriedEventSchema,
  Site: siteSchema,
  SiteList: siteListSchema,
  CreateSiteRequest: createSiteBodySchema,
  PatchSiteRequest: patchSiteBodySchema,
  SiteHistory: siteHistorySchema,
  SiteRunList: siteRunListSchema,
  PutTriageRequest: putTriageBodySchema,
  Triage: triageSchema,
  SiteRegressedEvent: siteRegressedEventSchema,
  WebhookTestEvent: webhookTestEventSchema,
  WebhookDisabledEvent: webhookDisabledEventSchema,
  CreateNotificationChannelRequest: createNotificationChannelBodySchema,
  NotificationChannel: notificationChannelSchema,
  NotificationChannelList: notificationChannelListSchema,
  CreateShareRequest: createShareBodySchema,
  Share: shareSchema,
  CreatedShare: createdShareSchema,
  ShareList: shareListSchema,
};

export function componentSchemas(): Record<string, object> {
  return Object.fromEntries(Object.entries(COMPONENTS).map(([name, schema]) => [name, withoutId(schema)]));
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Monthly audit quota of the tier.' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Audits left this period.' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix seconds of the next quota reset.' },
  'RateLimit-Policy': {
    schema: { type: 'string' },
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers (Structured Field List): "quota" (monthly audits; w = this month in seconds), ' +
      'and for live keys "burst" (10 live triggers per 60 s) and "retrieval" (100 other requests per 60 s), each with q and w.',
    example: '"quota";q=50;w=2592000, "burst";q=10;w=60, "retrieval";q=100;w=60',
  },
  RateLimit: {
    schema: { type: 'string' },
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers: r (left) and t (seconds) of "quota", and of the window this request counted in ' +
      '("burst" for a live trigger, "retrieval" for any other live request).',
    example: '"quota";r=42;t=1209600, "retrieval";r=97;t=41',
  },
  'X-Request-Id': { schema: { type: 'string' } },
};

const ref = (name: keyof typeof COMPONENTS) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ content: { 'application/json': { schema } } });
// Ids of another shape are answered 404 without a lookup.
const idParam = (name: string, kind: keyof typeof ID_PATTERNS) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: ID_PATTERNS[kind] },
});

/** The building blocks every path description uses. */
export const openApiParts = {
  ref,
  json,
  /** Error responses by HTTP status, each naming the codes (ERROR_CATALOG) it stands for. */
  errors: (...codes: ErrorCode[]) =>
    Object.fromEntries(
      [...new Set(codes.map((code) => ERROR_CATALOG[code].status))].map((status) => {
        const named = codes.filter((c) => ERROR_CATALOG[c].status === status);
        const examples = Object.fromEntries(named.map((c) => [c, { summary: c, value: errorExample(c) }]));
        return [
          String(status),
          { description: named.join(', '), content: { 'application/json': { schema: ref('Error'), examples } } },
        ];
      }),
    ),
  /** Errors any authenticated call can answer with. */
  common: [
    'invalid_api_key',
    'ip_not_allowed',
    'too_many_failed_authentications',
    'retrieval_limit_exceeded',
    'internal_error',
  ] as ErrorCode[],
  idParam,
  auditIdParam: idParam('audit_id', 'audit'),
  webhookIdParam: idParam('webhook_id', 'webhook'),
  pageParams: Object.entries(pageQuerySchema.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  })),
  rateHeaders: RATE_HEADERS,
  /** A success response with the rate-limit headers. */
  ok: (description: string, schema: object) => ({ description, headers: RATE_HEADERS, ...json(schema) }),
};

export type OpenApiParts = typeof openApiParts;

function withoutId(schema: object): object {
  const { $id: _id, ...rest } = schema as { $id?: string };
  return rest;
}
