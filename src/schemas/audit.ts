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
export const PERFORMANCE_BASES = ['lab', 'diagnostics'] as const;

const timestamp = { type: 'string', format: 'date-time', description: 'RFC 3339 UTC with milliseconds.' } as const;

export const findingSchema = {
  $id: 'Finding',
  type: 'object',
  description: 'One problem the audit found, with where it was seen and how to fix it.',
  additionalProperties: false,
  required: [
    'id',
    'fingerprint',
    'analyzer',
    'category',
    'severity',
    'title',
    'message',
    'recommendation',
    'urls',
    'evidence',
  ],
  properties: {
    id: { type: 'string', pattern: '^fnd_[0-9a-z]+$', description: 'Stable within the audit.' },
    fingerprint: {
      type: 'string',
      pattern: '^fp_[0-9a-z]+$',
      description:
        'The same problem on the same subject has the same fingerprint in every audit of the domain, whatever the crawl order or wording.',
    },
    analyzer: { type: 'string', pattern: '^[A-Z0-9_]+$', description: 'Code of the analyzer that produced it.' },
    category: { type: 'string', enum: CATEGORIES },
    severity: { type: 'string', enum: SEVERITIES },
    title: { type: 'string', minLength: 1 },
    message: { type: 'string', minLength: 1, description: 'What was found, concretely.' },
    recommendation: { type: 'string', minLength: 1, description: 'What a developer should change.' },
    urls: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string' },
      description:
        'Affected pages or resources: the first 100 (shallowest first); GET /v1/audits/{audit_id}/findings/{finding_id}/urls pages through all of them.',
    },
    count: {
      type: 'integer',
      minimum: 0,
      description:
        'Exactly how many URLs the finding affects (0: the site as a whole). Absent from audits made before it existed.',
    },
    evidence: { type: 'string', description: 'Short excerpt: a header value, an element, a record.' },
    triage: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'note'],
      description: "The site's triage of this fingerprint, when it has one (the score does not change).",
      properties: {
        status: { type: 'string', enum: ['open', 'ignored', 'accepted'] },
        note: { type: ['string', 'null'] },
      },
    },
  },
} as const;

const scoreDeltaSchema = { type: 'integer', minimum: -100, maximum: 100 } as const;
const fingerprintsSchema = { type: 'array', items: { type: 'string', pattern: '^fp_[0-9a-z]+$' } } as const;

export const comparisonSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'Changes since the latest earlier completed audit of the same domain in this workspace and mode.',
  required: ['previous_audit_id', 'previous_score', 'score_delta', 'categories', 'new', 'fixed', 'unchanged'],
  properties: {
    previous_audit_id: { type: 'string', pattern: '^aud_[0-9A-Za-z]+$' },
    previous_score: { type: 'integer', minimum: 0, maximum: 100 },
    score_delta: scoreDeltaSchema,
    categories: {
      type: 'object',
      additionalProperties: false,
      description: 'Score change per category present in both audits.',
      properties: Object.fromEntries(CATEGORIES.map((c) => [c, scoreDeltaSchema])) as {
        [K in (typeof CATEGORIES)[number]]: typeof scoreDeltaSchema;
      },
    },
    new: { ...fingerprintsSchema, description: 'Found now, not before; ignored or accepted ones never count.' },
    fixed: { ...fingerprintsSchema, description: 'Found before, not now.' },
    unchanged: { type: 'integer', minimum: 0, description: 'Fingerprints found in both audits.' },
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
    weight: {
      type: 'integer',
      minimum: 0,
      description:
        'Severity weight; 0 when not applicable or errored, and for performance analyzers when the category is scored from lab metrics (browser.performance_basis lab).',
    },
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
    depth: {
      type: ['integer', 'null'],
      minimum: 0,
      description: 'Clicks from the home page by the shortest path of links; null: reached only from a sitemap.',
    },
    ttfb_ms: { type: 'integer', minimum: 0 },
    bytes: { type: 'integer', minimum: 0 },
    content_type: { type: ['string', 'null'] },
    title: { type: ['string', 'null'] },
  },
} as const;

const measuredLabPageSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'A sampled page rendered in the browser stage, with its Lighthouse lab metrics.',
  required: ['url', 'status', 'fcp_ms', 'lcp_ms', 'cls', 'tbt_ms', 'speed_index_ms', 'performance_score'],
  properties: {
    url: { type: 'string' },
    status: { type: 'string', const: 'measured' },
    fcp_ms: { type: 'integer', minimum: 0, description: 'First Contentful Paint.' },
    lcp_ms: { type: 'integer', minimum: 0, description: 'Largest Contentful Paint.' },
    cls: { type: 'number', minimum: 0, description: 'Cumulative Layout Shift (unitless, 4 decimals).' },
    tbt_ms: { type: 'integer', minimum: 0, description: 'Total Blocking Time.' },
    speed_index_ms: { type: 'integer', minimum: 0, description: 'Speed Index.' },
    performance_score: {
      type: 'integer',
      minimum: 0,
      maximum: 100,
      description: "Lighthouse's performance score of the page, computed from the metrics above.",
    },
  },
} as const;

const unrenderableLabPageSchema = {
  type: 'object',
  additionalProperties: false,
  description: 'A sampled page the browser stage could not render (it does not fail the audit).',
  required: ['url', 'status', 'reason'],
  properties: {
    url: { type: 'string' },
    status: { type: 'string', const: 'unrenderable' },
    reason: { type: 'string', minLength: 1 },
  },
} as const;

export const browserStageSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    'The browser stage (headless Chromium on a sample of the crawled pages). Absent from audits made before it existed.',
  required: ['performance_basis', 'performance_score', 'duration_ms', 'pages'],
  properties: {
    performance_basis: {
      type: 'string',
      enum: PERFORMANCE_BASES,
      description:
        '`lab`: the performance category is the mean Lighthouse score of the measured pages; `diagnostics`: no page could be measured, so it is scored from the HTML diagnostics analyzers.',
    },
    performance_score: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 100,
      description: 'Mean performance_score of the measured pages, rounded; null when none was measured.',
    },
    duration_ms: { type: 'integer', minimum: 0 },
    pages: {
      type: 'array',
      description: 'Sampled pages in sampling order (home page first); empty when the stage did not run.',
      items: { oneOf: [measuredLabPageSchema, unrenderableLabPageSchema] },
    },
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
        pages_crawled: {
          type: 'integer',
          minimum: 0,
          description: 'URLs the crawl requested as pages (redirects and errors included).',
        },
        page_budget: { type: 'integer', minimum: 1, description: 'Pages answering HTML the tier allows.' },
        pages_discovered: {
          type: 'integer',
          minimum: 0,
          description: 'Distinct same-site URLs seen, crawled or not. Absent from audits made before it existed.',
        },
        budget_exhausted: {
          type: 'boolean',
          description:
            'The page budget ended the crawl before the site did. Absent from audits made before it existed.',
        },
        duration_ms: {
          type: 'integer',
          minimum: 0,
          description:
            'How long the crawl took, from its first request to its last page and check; the analysis after it is not included.',
        },
        pages: {
          type: 'array',
          maxItems: 100,
          items: crawledPageSchema,
          description: 'The first 100 crawled URLs, breadth first; GET /v1/audits/{audit_id}/pages lists every one.',
        },
      },
    },
    browser: browserStageSchema,
    created_at: timestamp,
    started_at: timestamp,
    completed_at: timestamp,
    comparison: comparisonSchema,
  },
} as const;

export type AuditJson = FromSchema<typeof auditJsonSchema>;
export type Finding = FromSchema<typeof findingSchema>;
export type Comparison = FromSchema<typeof comparisonSchema>;
export type AnalyzerResult = FromSchema<typeof analyzerResultSchema>;
export type CrawledPage = FromSchema<typeof crawledPageSchema>;
export type BrowserStageJson = FromSchema<typeof browserStageSchema>;
export type PerformanceBasis = (typeof PERFORMANCE_BASES)[number];
export type Category = (typeof CATEGORIES)[number];
export type Severity = (typeof SEVERITIES)[number];
export type AnalyzerStatus = (typeof ANALYZER_STATUSES)[number];
export type Tier = (typeof TIERS)[number];
export type Mode = (typeof MODES)[number];
export type Grade = (typeof GRADES)[number];
