import type { FromSchema } from 'json-schema-to-ts';

/**
 * The audit JSON, version v1: the single source of truth for what a completed audit looks like.
 * ajv validates every result against it before it is stored; the OpenAPI document embeds it;
 * the TypeScript type `AuditJson` is derived from it.
 */

export const CATEGORIES = ['security', 'seo', 'performance', 'accessibility', 'best_practices', 'dns_email'] as const;
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const ANALYZER_STATUSES = ['pass', 'warn', 'fail', 'not_applicable', 'error'] as const;
export const TIERS = ['free', 'pro', 'team', 'enterprise'] as const;
export const MODES = ['test', 'live'] as const;
export const GRADES = ['A+', 'A', 'B', 'C', 'D', 'F'] as const;

const timestamp = { type: 'string', format: 'date-time', description: 'RFC 3339 UTC with milliseconds.' } as const;

export const findingSchema = {
  $id: 'Finding',
  type: 'object',
  description: 'One problem the audit found, with where it was seen and how to fix it.',
  additionalProperties: false,
  required: ['id', 'analyzer', 'category', 'severity', 'title', 'message', 'recommendation', 'urls', 'evidence'],
  properties: {
    id: { type: 'string', pattern: '^fnd_[0-9a-z]+$', description: 'Stable within the audit.' },
    analyzer: { type: 'string', pattern: '^[A-Z0-9_]+$', description: 'Code of the analyzer that produced it.' },
    category: { type: 'string', enum: CATEGORIES },
    severity: { type: 'string', enum: SEVERITIES },
    title: { type: 'string', minLength: 1 },
    message: { type: 'string', minLength: 1, description: 'What was found, concretely.' },
    recommendation: { type: 'string', minLength: 1, description: 'What a developer should change.' },
    urls: { type: 'array', items: { type: 'string' }, description: 'Affected pages or resources.' },
    evidence: { type: 'string', description: 'Short excerpt: a header value, an element, a record.' },
  },
} as const;

export const analyzerResultSchema = {
  $id: 'AnalyzerResult',
  type: 'object',
  description: 'The outcome of one analyzer of the catalog.',
  additionalProperties: false,
  required: ['code', 'category', 'title', 'severity', 'status', 'score', 'weight'],
  properties: {
    code: { type: 'string', pattern: '^[A-Z0-9_]+$' },
    category: { type: 'string', enum: CATEGORIES },
    title: { type: 'string', minLength: 1 },
    severity: { type: 'string', enum: SEVERITIES },
    status: { type: 'string', enum: ANALYZER_STATUSES },
    score: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Share of the check passed (per-page checks: share of pages).',
    },
    weight: { type: 'integer', minimum: 0, description: 'Severity weight; 0 when not applicable or errored.' },
  },
} as const;

const categoryScoreSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['score', 'weight'],
  properties: {
    score: { type: 'integer', minimum: 0, maximum: 100 },
    weight: { type: 'integer', minimum: 0, description: 'Weight of the category in the overall score.' },
  },
} as const;

export const crawledPageSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'status_code', 'depth', 'ttfb_ms', 'bytes', 'content_type'],
  properties: {
    url: { type: 'string' },
    status_code: { type: 'integer' },
    depth: { type: 'integer', minimum: 0 },
    ttfb_ms: { type: 'integer', minimum: 0 },
    bytes: { type: 'integer', minimum: 0 },
    content_type: { type: ['string', 'null'] },
    title: { type: ['string', 'null'] },
  },
} as const;

export const auditJsonSchema = {
  $id: 'Audit',
  type: 'object',
  description: 'A completed audit (version v1).',
  additionalProperties: false,
  required: [
    'audit_id',
    'version',
    'scoring_version',
    'domain',
    'status',
    'mode',
    'tier',
    'score',
    'grade',
    'categories',
    'findings',
    'analyzers',
    'crawl',
    'created_at',
    'started_at',
    'completed_at',
  ],
  properties: {
    audit_id: { type: 'string', pattern: '^aud_[0-9A-Za-z]+$' },
    version: { type: 'string', const: 'v1' },
    scoring_version: { type: 'integer', const: 1 },
    domain: { type: 'string', description: 'Normalized origin, e.g. https://example.com' },
    status: { type: 'string', const: 'completed' },
    mode: { type: 'string', enum: MODES },
    tier: { type: 'string', enum: TIERS, description: 'Depth the audit ran at.' },
    score: { type: 'integer', minimum: 0, maximum: 100 },
    grade: { type: 'string', enum: GRADES },
    categories: {
      type: 'object',
      additionalProperties: false,
      description: 'Score per category present in this audit.',
      properties: Object.fromEntries(CATEGORIES.map((c) => [c, categoryScoreSchema])) as {
        [K in (typeof CATEGORIES)[number]]: typeof categoryScoreSchema;
      },
    },
    findings: { type: 'array', items: findingSchema },
    analyzers: { type: 'array', items: analyzerResultSchema },
    crawl: {
      type: 'object',
      additionalProperties: false,
      required: ['pages_crawled', 'page_budget', 'duration_ms', 'pages'],
      properties: {
        pages_crawled: { type: 'integer', minimum: 0 },
        page_budget: { type: 'integer', minimum: 1 },
        duration_ms: { type: 'integer', minimum: 0 },
        pages: { type: 'array', items: crawledPageSchema },
      },
    },
    created_at: timestamp,
    started_at: timestamp,
    completed_at: timestamp,
  },
} as const;

export type AuditJson = FromSchema<typeof auditJsonSchema>;
export type Finding = FromSchema<typeof findingSchema>;
export type AnalyzerResult = FromSchema<typeof analyzerResultSchema>;
export type CrawledPage = FromSchema<typeof crawledPageSchema>;
export type Category = (typeof CATEGORIES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type AnalyzerStatus = (typeof ANALYZER_STATUSES)[number];
export type Tier = (typeof TIERS)[number];
export type Mode = (typeof MODES)[number];
export type Grade = (typeof GRADES)[number];
