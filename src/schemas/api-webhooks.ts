import type { FromSchema } from 'json-schema-to-ts';
import { pageQuerySchema, timestamp } from './api-common';

/** Webhook endpoints and their deliveries. */

/** Events a webhook subscribes to (src/webhooks/events.ts WEBHOOK_EVENTS; tests keep the two lists equal). */
const subscribableEvents = [
  'audit.completed',
  'audit.failed',
  'audit.retried',
  'site.regressed',
  'webhook.disabled',
] as const;

const eventsProperty = {
  type: 'array',
  minItems: 1,
  uniqueItems: true,
  items: { type: 'string', enum: subscribableEvents },
  description:
    "Defaults to the three audit events. site.regressed (a monitored site's audit scored 5 or more points lower, or has a new high or critical finding) and webhook.disabled (another webhook of the workspace was disabled) are sent only to webhooks that list them.",
} as const;

const urlProperty = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  description: 'http(s) endpoint that receives the events; it must pass the outbound policy (no private addresses).',
} as const;

export const createWebhookBodySchema = {
  $id: 'CreateWebhookRequest',
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: urlProperty,
    events: eventsProperty,
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

export const patchWebhookBodySchema = {
  $id: 'PatchWebhookRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    url: urlProperty,
    events: { ...eventsProperty, description: 'Replaces the list of events.' },
    status: {
      type: 'string',
      enum: ['enabled'],
      description:
        'enabled turns a disabled webhook back on (deliveries resume with the next event; POST /webhooks/{webhook_id}/recover sends the failed ones again).',
    },
  },
} as const;
export type PatchWebhookBody = FromSchema<typeof patchWebhookBodySchema>;

export const webhookSchema = {
  $id: 'Webhook',
  type: 'object',
  required: ['webhook_id', 'url', 'events', 'status', 'disabled_at', 'disabled_reason', 'failing_since', 'created_at'],
  properties: {
    webhook_id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    secret: { type: 'string', description: 'Only in the creation response.' },
    status: {
      type: 'string',
      enum: ['enabled', 'disabled'],
      description: 'disabled: every delivery failed for WEBHOOK_DISABLE_AFTER_MS (5 days); nothing is sent to it.',
    },
    disabled_at: { type: ['string', 'null'], format: 'date-time' },
    disabled_reason: {
      type: ['string', 'null'],
      enum: ['consecutive_failures', null],
      description: 'consecutive_failures: every attempt failed for WEBHOOK_DISABLE_AFTER_MS.',
    },
    failing_since: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When its current run of nothing but failed attempts began; null once an attempt gets through.',
    },
    previous_secret_expires_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Until then the secret before the last rotation signs every delivery too; null when none does.',
    },
    created_at: timestamp,
  },
} as const;

export const rotateSecretBodySchema = {
  $id: 'RotateSecretRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    grace_seconds: {
      type: 'integer',
      minimum: 0,
      maximum: 604800,
      default: 86400,
      description:
        'How long the previous secret goes on signing every delivery beside the new one (two signatures per header); 0: not at all.',
    },
  },
} as const;
export type RotateSecretBody = FromSchema<typeof rotateSecretBodySchema>;

export const rotateSecretResponseSchema = {
  $id: 'RotateSecretResponse',
  type: 'object',
  required: ['webhook_id', 'secret', 'previous_secret_expires_at'],
  properties: {
    webhook_id: { type: 'string' },
    secret: { type: 'string', description: 'The new secret (whsec_…), shown in this answer only.' },
    previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const webhookTestResultSchema = {
  $id: 'WebhookTestResult',
  type: 'object',
  required: ['delivery_id', 'delivered', 'status_code', 'duration_ms', 'error'],
  properties: {
    delivery_id: { type: 'string', description: 'The test delivery in the delivery log.' },
    delivered: { type: 'boolean', description: 'The endpoint answered 2xx within the time-out.' },
    status_code: { type: ['integer', 'null'] },
    duration_ms: { type: 'integer' },
    error: {
      type: ['string', 'null'],
      enum: [null, 'timeout', 'dns', 'connect', 'tls', 'blocked_address', 'non_2xx', 'other'],
      description: 'Why it was not delivered; null when it was.',
    },
    error_message: { type: ['string', 'null'] },
  },
} as const;

export const recoverBodySchema = {
  $id: 'RecoverRequest',
  type: 'object',
  additionalProperties: false,
  required: ['since'],
  properties: {
    since: {
      type: 'string',
      format: 'date-time',
      description: 'Failed deliveries created at or after this time (RFC 3339) are sent again; at most 7 days back.',
    },
  },
} as const;
export type RecoverBody = FromSchema<typeof recoverBodySchema>;

export const recoverResponseSchema = {
  $id: 'RecoverResponse',
  type: 'object',
  required: ['queued'],
  properties: { queued: { type: 'integer', minimum: 0, description: 'Failed deliveries sent again.' } },
} as const;

export const listDeliveriesQuerySchema = {
  $id: 'ListDeliveriesQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    ...pageQuerySchema.properties,
    status: { type: 'string', enum: ['delivered', 'failed', 'pending'], description: 'Only deliveries in this state.' },
    event: {
      type: 'string',
      enum: [...subscribableEvents, 'webhook.test'],
      description: 'Only deliveries of this event.',
    },
    since: { ...timestamp, description: 'Only deliveries created at or after this time (RFC 3339).' },
  },
} as const;
export type ListDeliveriesQuery = FromSchema<typeof listDeliveriesQuerySchema>;

export const deliverySchema = {
  $id: 'Delivery',
  type: 'object',
  required: ['delivery_id', 'event', 'audit_id', 'url', 'state', 'created_at', 'attempts'],
  properties: {
    delivery_id: { type: 'string' },
    event: { type: 'string' },
    audit_id: {
      type: ['string', 'null'],
      description: 'null for events about no audit (webhook.test, webhook.disabled).',
    },
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
