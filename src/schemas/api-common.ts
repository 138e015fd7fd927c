import type { FromSchema } from 'json-schema-to-ts';

/** Shapes shared by every resource of the REST API: timestamps, pagination and the error envelope. */

export const timestamp = { type: 'string', format: 'date-time' } as const;

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
