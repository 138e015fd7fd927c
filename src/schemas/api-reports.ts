import type { FromSchema } from 'json-schema-to-ts';
import { timestamp } from './api-common';

/** Report branding, signed report links and report rendering. */

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
