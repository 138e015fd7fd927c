import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';

/** Webhook endpoints and their deliveries. */

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
      items: { type: 'string', enum: ['audit.completed', 'audit.failed', 'audit.retried', 'site.regressed'] },
      description:
        "Defaults to the three audit events. site.regressed (a monitored site's audit scored 5 or more points lower, or has a new high or critical finding) is sent only to webhooks that list it.",
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
