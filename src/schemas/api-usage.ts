import { TIERS } from './audit';
import { timestamp } from './api-common';

/** The account's quota position and rate limits (GET /v1/usage). */
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
