import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';
import { TIERS } from './audit';

/** Monitored sites: audited on a schedule, their history, runs and the triage of their findings. */

const schedule = {
  type: 'string',
  enum: ['daily', 'weekly', 'monthly'],
  description:
    'How often the site is audited: at the minute of day (UTC) it was created, every day, every week on that weekday, or every month on that day (the 28th at the latest).',
} as const;

export const createSiteBodySchema = {
  $id: 'CreateSiteRequest',
  type: 'object',
  additionalProperties: false,
  required: ['domain', 'schedule'],
  properties: {
    domain: {
      type: 'string',
      minLength: 1,
      maxLength: 2048,
      description: 'Absolute http(s) URL of the site, as for POST /audits.',
    },
    schedule,
    tier: {
      type: 'string',
      enum: TIERS,
      description:
        "Audit depth of the site's runs (at most the account's tier); the account's tier at each run when omitted.",
    },
  },
} as const;
export type CreateSiteBody = FromSchema<typeof createSiteBodySchema>;

export const patchSiteBodySchema = {
  $id: 'PatchSiteRequest',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    schedule,
    paused: { type: 'boolean', description: 'true pauses the site and its Temporal Schedule; false resumes both.' },
  },
} as const;
export type PatchSiteBody = FromSchema<typeof patchSiteBodySchema>;

export const siteSchema = {
  $id: 'Site',
  type: 'object',
  required: [
    'site_id',
    'domain',
    'schedule',
    'tier',
    'paused',
    'paused_reason',
    'next_run_at',
    'last_audit_id',
    'created_at',
  ],
  properties: {
    site_id: { type: 'string', pattern: '^site_[0-9a-z]+$' },
    domain: { type: 'string', description: 'Normalized origin, as audits show it.' },
    schedule,
    tier: { type: ['string', 'null'], enum: [...TIERS, null] },
    paused: { type: 'boolean' },
    paused_reason: {
      type: ['string', 'null'],
      enum: ['tier_limit', null],
      description: 'tier_limit: paused by a downgrade below the number of sites; null: running, or paused by a user.',
    },
    next_run_at: { type: ['string', 'null'], format: 'date-time', description: 'Null while paused.' },
    last_audit_id: { type: ['string', 'null'], description: 'Newest audit of this domain in this workspace and mode.' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

const page = (items: object) =>
  ({
    type: 'object',
    required: ['data', 'has_more', 'next_cursor'],
    properties: {
      data: { type: 'array', items },
      has_more: { type: 'boolean' },
      next_cursor: { type: ['string', 'null'] },
    },
  }) as const;

export const siteListSchema = { $id: 'SiteList', ...page({ $ref: '#/components/schemas/Site' }) } as const;

export const siteHistorySchema = {
  $id: 'SiteHistory',
  ...page({
    type: 'object',
    required: ['audit_id', 'completed_at', 'score', 'grade', 'categories'],
    properties: {
      audit_id: { type: 'string' },
      completed_at: timestamp,
      score: { type: ['integer', 'null'] },
      grade: { type: ['string', 'null'] },
      categories: { type: ['object', 'null'], description: 'Per-category scores, as in the audit JSON.' },
    },
  }),
} as const;

export const siteHistoryCsvQuerySchema = {
  $id: 'SiteHistoryCsvQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    completed_after: {
      ...timestamp,
      description: 'Only audits completed after this instant (exclusive); RFC 3339, years 0001 to 9999.',
    },
    completed_before: {
      ...timestamp,
      description: 'Only audits completed before this instant (exclusive); RFC 3339, years 0001 to 9999.',
    },
  },
} as const;
export type SiteHistoryCsvQuery = FromSchema<typeof siteHistoryCsvQuerySchema>;

export const siteRunListSchema = {
  $id: 'SiteRunList',
  ...page({
    type: 'object',
    required: ['run_id', 'scheduled_at', 'outcome', 'audit_id', 'skip_reason', 'skip_message'],
    properties: {
      run_id: { type: 'string' },
      scheduled_at: timestamp,
      outcome: { type: 'string', enum: ['started', 'skipped'] },
      audit_id: { type: ['string', 'null'] },
      skip_reason: {
        type: ['string', 'null'],
        description:
          'Error code of the refused trigger, e.g. audit_quota_exceeded, burst_limit_exceeded, tier_required.',
      },
      skip_message: { type: ['string', 'null'] },
    },
  }),
} as const;

export const putTriageBodySchema = {
  $id: 'PutTriageRequest',
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: {
    status: { type: 'string', enum: ['open', 'ignored', 'accepted'] },
    note: { type: ['string', 'null'], maxLength: 2000, description: 'Why; shown with the finding in later audits.' },
  },
} as const;
export type PutTriageBody = FromSchema<typeof putTriageBodySchema>;

export const triageSchema = {
  $id: 'Triage',
  type: 'object',
  required: ['site_id', 'fingerprint', 'status', 'note', 'set_by', 'updated_at'],
  properties: {
    site_id: { type: 'string' },
    fingerprint: { type: 'string' },
    status: { type: 'string', enum: ['open', 'ignored', 'accepted'] },
    note: { type: ['string', 'null'] },
    set_by: { type: 'string', description: 'key:<key_id> (API) or user:<user_id> (dashboard).' },
    updated_at: timestamp,
  },
} as const;
