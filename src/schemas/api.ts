import type { FromSchema } from 'json-schema-to-ts';
import { TIERS } from './audit';

/** Request and response shapes of the REST API; ajv validates requests with these at the edge. */

const timestamp = { type: 'string', format: 'date-time' } as const;

export const triggerAuditBodySchema = {
  $id: 'TriggerAuditRequest',
  type: 'object',
  additionalProperties: false,
  required: ['domain'],
  properties: {
    domain: {
      type: 'string',
      maxLength: 2048,
      description: 'Absolute http:// or https:// URL of the site, e.g. https://example.com',
    },
    tier: {
      type: 'string',
      enum: ['free', 'pro', 'team', 'enterprise'],
      description: 'Audit depth; defaults to the account tier.',
    },
    webhook_url: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'Overrides the default webhook(s) for this audit.',
    },
  },
} as const;
export type TriggerAuditBody = FromSchema<typeof triggerAuditBodySchema>;

export const listAuditsQuerySchema = {
  $id: 'ListAuditsQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size, written in digits.' },
    cursor: { type: 'string', minLength: 1, maxLength: 512 },
    status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
    domain: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'An origin (https://example.com) or a bare host (either protocol, any port).',
    },
    completed_after: { ...timestamp, description: 'RFC 3339, years 0001 to 9999.' },
    completed_before: { ...timestamp, description: 'RFC 3339, years 0001 to 9999.' },
  },
} as const;
export type ListAuditsQuery = FromSchema<typeof listAuditsQuerySchema>;

export const triggerAuditResponseSchema = {
  $id: 'TriggerAuditResponse',
  type: 'object',
  required: ['audit_id', 'status', 'estimated_completion'],
  properties: {
    audit_id: { type: 'string' },
    status: { type: 'string', const: 'queued' },
    estimated_completion: timestamp,
  },
} as const;

export const statusEnvelopeSchema = {
  $id: 'AuditStatusEnvelope',
  type: 'object',
  description: 'Returned instead of the audit JSON while the audit is not complete.',
  required: ['audit_id', 'domain', 'status', 'estimated_completion'],
  properties: {
    audit_id: { type: 'string' },
    domain: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'running', 'failed'] },
    estimated_completion: { type: ['string', 'null'], format: 'date-time' },
    attempts: { type: 'integer', description: 'Attempts made; present when failed.' },
    error: {
      type: 'object',
      description: 'Present when failed.',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'domain_unreachable',
            'robots_disallowed',
            'target_rate_limited',
            'audit_provider_unavailable',
            'internal_error',
          ],
        },
        message: { type: 'string' },
      },
    },
  },
} as const;

export const auditSummarySchema = {
  $id: 'AuditSummary',
  type: 'object',
  required: ['audit_id', 'domain', 'score', 'completed_at', 'status'],
  properties: {
    audit_id: { type: 'string' },
    domain: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'running', 'completed', 'failed'] },
    score: { type: ['integer', 'null'] },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
  },
} as const;

export const auditListSchema = {
  $id: 'AuditList',
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: auditSummarySchema },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null at the end.' },
  },
} as const;

export const usageSchema = {
  $id: 'Usage',
  type: 'object',
  required: [
    'tier',
    'period_start',
    'period_end',
    'audits_limit',
    'audits_used',
    'audits_remaining',
    'burst',
    'retrieval',
  ],
  properties: {
    tier: { type: 'string', enum: TIERS },
    period_start: timestamp,
    period_end: { ...timestamp, description: 'Next quota reset (start of next month, UTC).' },
    audits_limit: { type: 'integer' },
    audits_used: { type: 'integer' },
    audits_remaining: { type: 'integer' },
    burst: {
      type: 'object',
      required: ['limit', 'window_seconds'],
      properties: { limit: { type: 'integer' }, window_seconds: { type: 'integer' } },
    },
    retrieval: {
      type: 'object',
      required: ['limit', 'window_seconds'],
      properties: { limit: { type: 'integer' }, window_seconds: { type: 'integer' } },
    },
  },
} as const;

export const errorEnvelopeSchema = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id', 'docs_url'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        request_id: { type: 'string' },
        docs_url: { type: 'string' },
      },
    },
  },
} as const;

export const createWebhookBodySchema = {
  $id: 'CreateWebhookRequest',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2048, description: 'http(s) endpoint that receives the events.' },
    events: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: ['audit.completed', 'audit.failed', 'audit.retried'] },
      description: 'Defaults to all three.',
    },
    secret: {
      type: 'string',
      minLength: 16,
      maxLength: 128,
      // Printable ASCII only: every client encodes it to the same HMAC key bytes.
      pattern: '^[!-~]+$',
      description:
        'HMAC signing secret of 16 to 128 printable ASCII characters without spaces; generated (whsec_…) when omitted.',
    },
  },
} as const;
export type CreateWebhookBody = FromSchema<typeof createWebhookBodySchema>;

export const pageQuerySchema = {
  $id: 'PageQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size, written in digits.' },
    cursor: { type: 'string', minLength: 1, maxLength: 512 },
  },
} as const;
export type PageQuery = FromSchema<typeof pageQuerySchema>;

export const webhookSchema = {
  $id: 'Webhook',
  type: 'object',
  required: ['webhook_id', 'url', 'events', 'created_at'],
  properties: {
    webhook_id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    secret: { type: 'string', description: 'Only in the creation response.' },
    created_at: timestamp,
  },
} as const;

export const deliverySchema = {
  $id: 'Delivery',
  type: 'object',
  required: ['delivery_id', 'event', 'audit_id', 'url', 'state', 'created_at', 'attempts'],
  properties: {
    delivery_id: { type: 'string' },
    event: { type: 'string' },
    audit_id: { type: 'string' },
    url: { type: 'string' },
    state: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    created_at: timestamp,
    next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    redeliverable_until: timestamp,
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['attempt', 'trigger', 'started_at', 'duration_ms', 'status_code', 'error_class'],
        properties: {
          attempt: { type: 'integer' },
          trigger: { type: 'string', enum: ['automatic', 'manual'] },
          started_at: timestamp,
          duration_ms: { type: 'integer' },
          status_code: { type: ['integer', 'null'] },
          error_class: {
            type: ['string', 'null'],
            enum: [null, 'timeout', 'dns', 'connect', 'tls', 'blocked_address', 'non_2xx', 'other'],
          },
          error_message: { type: ['string', 'null'] },
          response_excerpt: { type: ['string', 'null'] },
          next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
        },
      },
    },
  },
} as const;

export const putBrandingBodySchema = {
  $id: 'PutBrandingRequest',
  type: 'object',
  additionalProperties: false,
  required: ['display_name', 'primary_color'],
  description:
    'Replaces the white-label branding of PDF reports for this workspace and mode (test keys brand test reports only).',
  properties: {
    display_name: {
      type: 'string',
      minLength: 1,
      maxLength: 80,
      description: "The agency's name: report cover, footer and PDF author.",
    },
    primary_color: { type: 'string', pattern: '^#[0-9a-fA-F]{6}$', description: 'Accent colour, #rrggbb.' },
    footer_text: { type: ['string', 'null'], maxLength: 160, description: 'Printed at the foot of every page.' },
    contact_line: { type: ['string', 'null'], maxLength: 160, description: 'Contact details printed on the cover.' },
    logo: {
      type: ['string', 'null'],
      contentEncoding: 'base64',
      maxLength: 54_616,
      description: 'PNG or JPEG, base64-encoded, at most 40 KiB decoded and 4096×4096 pixels.',
    },
  },
} as const;
export type PutBrandingBody = FromSchema<typeof putBrandingBodySchema>;

const nullableText = { type: ['string', 'null'] } as const;

export const brandingSchema = {
  $id: 'Branding',
  type: 'object',
  description: 'White-label branding of PDF reports; every field null when none is set (the neutral look).',
  required: ['display_name', 'primary_color', 'footer_text', 'contact_line', 'logo', 'updated_at'],
  properties: {
    display_name: nullableText,
    primary_color: nullableText,
    footer_text: nullableText,
    contact_line: nullableText,
    logo: {
      type: ['object', 'null'],
      required: ['content_type', 'byte_size'],
      properties: {
        content_type: { type: 'string', enum: ['image/png', 'image/jpeg'] },
        byte_size: { type: 'integer' },
      },
    },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const reportLinkSchema = {
  $id: 'ReportLink',
  type: 'object',
  required: ['audit_id', 'url', 'expires_at'],
  properties: {
    audit_id: { type: 'string' },
    url: { type: 'string', description: 'Signed link to the PDF, valid 60 minutes, fetched without an API key.' },
    expires_at: timestamp,
  },
} as const;

export const reportRenderingSchema = {
  $id: 'ReportRendering',
  type: 'object',
  description:
    'HTTP 202 while the PDF of a completed audit is still being rendered; ask again after Retry-After seconds.',
  required: ['audit_id', 'domain', 'status', 'estimated_completion'],
  properties: {
    audit_id: { type: 'string' },
    domain: { type: 'string' },
    status: { type: 'string', const: 'rendering' },
    estimated_completion: timestamp,
  },
} as const;
