import type { FromSchema } from 'json-schema-to-ts';

/**
 * Every URL an audit's crawl requested, and every URL of a finding (src/audits/crawl-facts.ts): the
 * query strings of their listings and the pages they answer with. The CSV exports carry the same
 * columns as these items (src/presenters/crawl-exports.ts).
 */

/** Finding ids of the audit JSON (`id` of findingSchema), with the length cap every path id has. */
export const FINDING_ID_PATTERN = '^fnd_[0-9a-z]{1,64}$';

const limit = {
  type: 'integer',
  minimum: 1,
  maximum: 200,
  default: 50,
  description: 'Page size from 1 to 200, written in digits.',
} as const;
const cursor = {
  type: 'string',
  minLength: 1,
  maxLength: 512,
  description: 'next_cursor of the previous page of this list.',
} as const;
// The column is an int4: larger bounds are refused rather than sent to Postgres.
const depth = { type: 'integer', minimum: 0, maximum: 2147483647 } as const;

export const listAuditPagesQuerySchema = {
  $id: 'ListAuditPagesQuery',
  type: 'object',
  additionalProperties: false,
  properties: {
    limit,
    cursor,
    status: {
      type: 'string',
      pattern: '^(?:[1-5][0-9]{2}|[2-5]xx)$',
      description: 'An HTTP status code from 100 to 599, or a class: 2xx, 3xx, 4xx or 5xx.',
    },
    min_depth: { ...depth, description: 'Pages at least this many clicks from the home page (0: the home page).' },
    max_depth: { ...depth, description: 'Pages at most this many clicks from the home page; not below min_depth.' },
    indexable: {
      type: 'boolean',
      description:
        'true: HTML pages answering 2xx without noindex that are not client-side redirects; false: the others.',
    },
  },
} as const;
export type ListAuditPagesQuery = FromSchema<typeof listAuditPagesQuerySchema>;

export const auditPageSchema = {
  type: 'object',
  description: 'One URL the crawl requested: a page, a redirect or an error answer.',
  required: [
    'url',
    'status',
    'depth',
    'inlinks',
    'outlinks',
    'title',
    'content_type',
    'bytes',
    'response_ms',
    'indexable',
    'canonical',
    'redirect_to',
  ],
  properties: {
    url: { type: 'string' },
    status: {
      type: ['integer', 'null'],
      description: 'The status this URL answered (a redirect: its 3xx); null when it could not be fetched.',
    },
    depth: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'Clicks from the home page by the shortest path of links; null for a page found only in a sitemap.',
    },
    inlinks: { type: 'integer', minimum: 0, description: 'Distinct crawled pages linking here.' },
    outlinks: { type: 'integer', minimum: 0, description: 'Distinct URLs this page links to (0 for non-HTML).' },
    title: { type: ['string', 'null'] },
    content_type: { type: ['string', 'null'] },
    bytes: { type: 'integer', minimum: 0 },
    response_ms: { type: 'integer', minimum: 0, description: 'Time to the first byte of the answer.' },
    indexable: {
      type: 'boolean',
      description:
        'An HTML page answering 2xx with no noindex, and not a client-side redirect (a refresh to another URL).',
    },
    canonical: { type: ['string', 'null'], description: 'Its rel=canonical target, absolute; null when none.' },
    redirect_to: { type: ['string', 'null'], description: 'Where a redirecting URL leads in the end.' },
  },
} as const;

/** One row of the pages listing and of pages.csv. */
export type AuditPage = FromSchema<typeof auditPageSchema>;

const nextCursor = {
  type: ['string', 'null'],
  description: 'Pass as `cursor` for the next page; null at the end.',
} as const;

export const auditPageListSchema = {
  $id: 'AuditPageList',
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: auditPageSchema },
    has_more: { type: 'boolean' },
    next_cursor: nextCursor,
  },
} as const;

export const findingUrlSchema = {
  type: 'object',
  description: 'One URL a finding names.',
  required: ['url', 'depth', 'referrers'],
  properties: {
    url: { type: 'string' },
    depth: { type: ['integer', 'null'], minimum: 0, description: 'Clicks from the home page; null when unknown.' },
    referrers: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'How many crawled pages link to it; null where that does not apply (a header, a DNS record).',
    },
  },
} as const;

export const findingUrlListSchema = {
  $id: 'FindingUrlList',
  type: 'object',
  required: ['data', 'has_more', 'next_cursor'],
  properties: {
    data: { type: 'array', items: findingUrlSchema },
    has_more: { type: 'boolean' },
    next_cursor: nextCursor,
  },
} as const;
