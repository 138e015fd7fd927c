import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';
import { TIERS } from './audit';
import { triggerAuditBodySchema } from './api-audits';

/** Monitored sites: audited on a schedule, their history, runs and the triage of their findings. */

const schedule = {
  type: 'string',
  enum: ['daily', 'weekly', 'monthly'],
  description:
    'How often the site is audited: every day, every week (on weekday) or every month (on day_of_month), at `at` in time_zone.',
} as const;

/** When in the customer's day a site runs (docs/decisions.md, "Schedules in the customer's time"). */
const timing = {
  time_zone: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description:
      'IANA time zone name the schedule runs in, such as Europe/Berlin or America/New_York (default UTC). at, weekday and day_of_month are local to it; daylight saving is followed.',
  },
  at: {
    type: 'string',
    pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    description: 'Time of day as HH:MM on a 24-hour clock, in time_zone (default: the minute of creation there).',
  },
  weekday: {
    type: 'string',
    enum: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
    description: 'Weekly schedules only: the day (default: the weekday of creation in time_zone).',
  },
  day_of_month: {
    type: 'integer',
    minimum: 1,
    maximum: 28,
    description: 'Monthly schedules only: the day, 1 to 28 (default: the day of creation in time_zone, at most 28).',
  },
} as const;

/** How the site's runs render their pages: `render` of POST /audits, under the same tier rule. */
const render = {
  type: 'string',
  enum: triggerAuditBodySchema.properties.render.enum,
  description:
    "How each run renders the site's pages, as `render` of POST /audits: sample (default) renders the sampled pages; all (team and enterprise; other tiers get 403 tier_required) renders every crawled HTML page.",
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
    ...timing,
    tier: {
      type: 'string',
      enum: TIERS,
      description:
        "Audit depth of the site's runs (at most the account's tier); the account's tier at each run when omitted.",
    },
    render,
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
    ...timing,
    paused: { type: 'boolean', description: 'true pauses the site and its Temporal Schedule; false resumes both.' },
    render,
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
    'time_zone',
    'at',
    'weekday',
    'day_of_month',
    'tier',
    'render',
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
    time_zone: { type: 'string', description: 'IANA time zone name; at, weekday and day_of_month are local to it.' },
    at: { type: 'string', pattern: timing.at.pattern, description: 'Time of day the site runs, HH:MM in time_zone.' },
    weekday: {
      type: ['string', 'null'],
      enum: [...timing.weekday.enum, null],
      description: 'The day of a weekly schedule; null for daily and monthly ones.',
    },
    day_of_month: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 28,
      description: 'The day of a monthly schedule; null for daily and weekly ones.',
    },
    tier: { type: ['string', 'null'], enum: [...TIERS, null] },
    render: { ...render, description: 'How its runs render pages: sample (the default) or all (every crawled page).' },
    paused: { type: 'boolean' },
    paused_reason: {
      type: ['string', 'null'],
      enum: ['tier_limit', null],
      description: 'tier_limit: paused by a downgrade below the number of sites; null: running, or paused by a user.',
    },
    next_run_at: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When the schedule fires next (UTC), daylight saving in time_zone included; null while paused.',
    },
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
