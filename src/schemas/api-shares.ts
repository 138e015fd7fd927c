import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';

/** Share links of an audit: a public page in the workspace's branding and its badge (README "Share links"). */

export const createShareBodySchema = {
  $id: 'CreateShareRequest',
  type: 'object',
  additionalProperties: false,
  properties: {
    expires_in_days: {
      type: 'integer',
      minimum: 1,
      maximum: 90,
      default: 30,
      description: 'How long the link works, in days from now.',
    },
    password: {
      type: 'string',
      minLength: 10,
      maxLength: 200,
      description:
        'Asked for before the page shows (at most 5 guesses per 15 minutes per link). At least 10 characters, not a common, repetitive or sequential one. Stored as a hash, never shown again.',
    },
  },
} as const;
export type CreateShareBody = FromSchema<typeof createShareBodySchema>;

const shareProperties = {
  share_id: { type: 'string' },
  audit_id: { type: 'string' },
  expires_at: timestamp,
  status: {
    type: 'string',
    enum: ['active', 'expired'],
    description: 'expired: past expires_at, the page and badge answer 404. Revoked links are not listed.',
  },
  password_protected: { type: 'boolean' },
  created_at: timestamp,
} as const;
const shareRequired = ['share_id', 'audit_id', 'expires_at', 'status', 'password_protected', 'created_at'] as const;

export const shareSchema = {
  $id: 'Share',
  type: 'object',
  description: 'A share link as listed: never its URL (only a digest of its token is kept) nor its password.',
  required: [...shareRequired],
  properties: shareProperties,
} as const;

export const createdShareSchema = {
  $id: 'CreatedShare',
  type: 'object',
  description: 'The new link: the only answer that carries its URL.',
  required: [...shareRequired, 'url'],
  properties: {
    ...shareProperties,
    url: {
      type: 'string',
      description:
        'The public page (no API key; noindex), `{url}/badge.svg` its badge. Shown once: keep it, or create another link.',
    },
  },
} as const;

export const shareListSchema = {
  $id: 'ShareList',
  type: 'object',
  required: ['data'],
  properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Share' } } },
} as const;
