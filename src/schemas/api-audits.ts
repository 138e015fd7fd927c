import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';

/** Audits: the trigger request and answer, the list query and pages, the not-yet-complete envelope. */

/** An audit's failure codes: AUDIT_FAILURE_CODES of workflows/contracts, repeated here because contracts depend on src/schemas. */
export const auditFailureCodeSchema = {
  type: 'string',
  enum: [
    'domain_unreachable',
    'robots_disallowed',
    'target_rate_limited',
    'audit_provider_unavailable',
    'internal_error',
  ],
} as const;

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
    render: {
      type: 'string',
      enum: ['sample', 'all'],
      description:
        'Which pages are rendered in Chromium. sample (default): the sampled pages (Lighthouse lab metrics and the rendered checks), plus any page that is an application shell. all (team and enterprise; other tiers get 403 tier_required): every crawled HTML page is rendered, the links that appear only after rendering are crawled too, and the rendered checks (colour contrast, links in text blocks, tap targets, console errors) run on every page; lab metrics stay on the sample.',
    },
  },
} as const;
export type TriggerAuditBody = FromSchema<typeof triggerAuditBodySchema>;

/** How an audit's pages are rendered (`render` of POST /v1/audits). */
export type RenderMode = NonNullable<TriggerAuditBody['render']>;

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
    estimated_completion: {
      type: ['string', 'null'],
      format: 'date-time',
      description:
        'While a live audit runs and reports progress: from the pages discovered and not crawled yet (within the page budget) at the rate measured so far, plus the later phases.',
    },
    progress: {
      type: 'object',
      description:
        'Present while a live audit runs, once its crawl has reported; absent when queued, failed and for test-mode audits.',
      required: ['phase', 'pages_crawled', 'pages_discovered'],
      properties: {
        phase: {
          type: 'string',
          enum: ['crawling', 'checking', 'analyzing', 'rendering'],
          description:
            'crawling: fetching pages; checking: checking links and resources; analyzing: running the checks on the pages; rendering: the browser stage renders a sample of the pages.',
        },
        pages_crawled: {
          type: 'integer',
          minimum: 0,
          description: 'Pages requested so far by the running attempt; never decreases while it runs.',
        },
        pages_discovered: {
          type: 'integer',
          minimum: 0,
          description:
            'Same-site pages seen so far, crawled or not (may exceed the page budget); never below pages_crawled.',
        },
      },
    },
    attempts: { type: 'integer', description: 'Attempts made; present when failed.' },
    error: {
      type: 'object',
      description: 'Present when failed.',
      required: ['code', 'message'],
      properties: {
        code: auditFailureCodeSchema,
        message: { type: 'string' },
      },
    },
  },
} as const;

const auditSummarySchema = {
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
