import { auditFailureCodeSchema } from './api-audits';
import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';
import { SEVERITIES } from './audit';

/**
 * Bodies of the webhook events besides audit.completed (whose body is the audit JSON itself), as
 * src/webhooks/events.ts and src/sites/regression.ts build them; the OpenAPI document's `webhooks` section describes them.
 */

const failureSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'message'],
  properties: {
    code: auditFailureCodeSchema,
    message: { type: 'string' },
  },
} as const;

export const auditFailedEventSchema = {
  $id: 'AuditFailedEvent',
  type: 'object',
  description: 'audit.failed: the final failure, after every automatic retry or at once for a code never retried.',
  additionalProperties: false,
  required: ['audit_id', 'domain', 'error', 'attempts', 'failed_at'],
  properties: {
    audit_id: { type: 'string' },
    domain: { type: 'string' },
    error: failureSchema,
    attempts: { type: 'integer', minimum: 1, description: 'Attempts made.' },
    failed_at: timestamp,
  },
} as const;
export type AuditFailedEvent = FromSchema<typeof auditFailedEventSchema>;

export const auditRetriedEventSchema = {
  $id: 'AuditRetriedEvent',
  type: 'object',
  description: 'audit.retried: an attempt failed and an automatic retry is scheduled.',
  additionalProperties: false,
  required: ['audit_id', 'domain', 'attempt', 'max_retries', 'next_attempt_at', 'error'],
  properties: {
    audit_id: { type: 'string' },
    domain: { type: 'string' },
    attempt: { type: 'integer', minimum: 1, description: 'The attempt that failed.' },
    max_retries: { type: 'integer', minimum: 0 },
    next_attempt_at: timestamp,
    error: failureSchema,
  },
} as const;
export type AuditRetriedEvent = FromSchema<typeof auditRetriedEventSchema>;

export const siteRegressedEventSchema = {
  $id: 'SiteRegressedEvent',
  type: 'object',
  description:
    "site.regressed (only to webhooks that list it): a monitored site's audit scored 5 or more points below the previous one, or has a new high or critical finding.",
  additionalProperties: false,
  required: ['site_id', 'audit_id', 'previous_audit_id', 'score', 'previous_score', 'new_findings'],
  properties: {
    site_id: { type: 'string' },
    audit_id: { type: 'string' },
    previous_audit_id: { type: 'string' },
    score: { type: 'integer', minimum: 0, maximum: 100 },
    previous_score: { type: 'integer', minimum: 0, maximum: 100 },
    new_findings: {
      type: 'array',
      description: 'Findings new since the previous audit (never those the triage ignored or accepted).',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['fingerprint', 'analyzer', 'severity', 'title'],
        properties: {
          fingerprint: { type: 'string' },
          analyzer: { type: 'string' },
          severity: { type: 'string', enum: SEVERITIES },
          title: { type: 'string' },
        },
      },
    },
  },
} as const;

export const webhookTestEventSchema = {
  $id: 'WebhookTestEvent',
  type: 'object',
  description:
    'webhook.test: sent at once by POST /webhooks/{webhook_id}/test to that webhook alone, signed like every delivery; never retried.',
  additionalProperties: false,
  required: ['type', 'webhook_id', 'sent_at'],
  properties: {
    type: { type: 'string', const: 'webhook.test' },
    webhook_id: { type: 'string' },
    sent_at: timestamp,
  },
} as const;

export const webhookDisabledEventSchema = {
  $id: 'WebhookDisabledEvent',
  type: 'object',
  description:
    'webhook.disabled (only to webhooks that list it): another webhook of the workspace was disabled after every delivery to it failed for WEBHOOK_DISABLE_AFTER_MS (5 days).',
  additionalProperties: false,
  required: ['webhook_id', 'url', 'disabled_at', 'reason'],
  properties: {
    webhook_id: { type: 'string', description: 'The webhook that was disabled.' },
    url: { type: 'string' },
    disabled_at: timestamp,
    reason: { type: 'string', enum: ['consecutive_failures'] },
  },
} as const;
