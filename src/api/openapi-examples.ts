import type { AuditJson, Finding } from '../schemas/audit';
import { ERROR_CATALOG, type ErrorCode } from '../errors';
import { WEBHOOK_LIFECYCLE_EXAMPLES } from './openapi-webhook-examples';
import { NOTIFICATION_EXAMPLES } from './openapi-notification-examples';
import { SHARE_EXAMPLES } from './openapi-share-examples';

// Example bodies of the OpenAPI document (one per named schema), shown by the reference at /docs.
// Redocly's lint (test/lint/redocly.yaml) validates each against its schema, so they cannot drift.

const AUDIT_ID = 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z';
const AT = {
  created: '2026-11-20T09:00:00.000Z',
  started: '2026-11-20T09:00:01.204Z',
  done: '2026-11-20T09:01:12.530Z',
};

const finding: Finding = {
  id: 'fnd_1',
  fingerprint: 'fp_3k9x2m7q1w',
  analyzer: 'SEC_HSTS_MISSING',
  category: 'security',
  severity: 'high',
  title: 'HSTS header missing',
  message: 'https://example.com/ answers without a Strict-Transport-Security header.',
  recommendation: 'Send Strict-Transport-Security: max-age=31536000; includeSubDomains on every HTTPS response.',
  urls: ['https://example.com/'],
  evidence: 'no strict-transport-security header',
};

const audit: AuditJson = {
  audit_id: AUDIT_ID,
  version: 'v1',
  scoring_version: 1,
  domain: 'https://example.com',
  status: 'completed',
  mode: 'live',
  tier: 'pro',
  score: 78,
  grade: 'C',
  categories: {
    security: { score: 64, weight: 30 },
    seo: { score: 88, weight: 20 },
    performance: { score: 81, weight: 20 },
    accessibility: { score: 79, weight: 15 },
    best_practices: { score: 90, weight: 10 },
    dns_email: { score: 70, weight: 5 },
  },
  findings: [finding],
  analyzers: [
    {
      code: 'SEC_HSTS_MISSING',
      category: 'security',
      title: 'HSTS header missing',
      severity: 'high',
      status: 'fail',
      score: 0,
      weight: 8,
    },
  ],
  crawl: {
    pages_crawled: 1,
    page_budget: 100,
    duration_ms: 4210,
    pages: [
      {
        url: 'https://example.com/',
        status_code: 200,
        depth: 0,
        ttfb_ms: 182,
        bytes: 48211,
        content_type: 'text/html; charset=utf-8',
        title: 'Example Domain',
      },
    ],
  },
  created_at: AT.created,
  started_at: AT.started,
  completed_at: AT.done,
};

const webhook = {
  webhook_id: 'wh_01JD7Q6B2C4D6E8F0G2H4J6K8M',
  url: 'https://hooks.example.net/audits',
  events: ['audit.completed', 'audit.failed', 'audit.retried'],
  status: 'enabled',
  disabled_at: null,
  disabled_reason: null,
  failing_since: null,
  previous_secret_expires_at: null,
  created_at: AT.created,
};

/** Example of each component schema, by component name. */
export const COMPONENT_EXAMPLES: Record<string, unknown> = {
  Audit: audit,
  Finding: finding,
  TriggerAuditRequest: { domain: 'https://example.com', tier: 'pro' },
  TriggerAuditResponse: { audit_id: AUDIT_ID, status: 'queued', estimated_completion: '2026-11-20T09:02:00.000Z' },
  AuditStatusEnvelope: {
    audit_id: AUDIT_ID,
    domain: 'https://example.com',
    status: 'running',
    estimated_completion: '2026-11-20T09:02:00.000Z',
    progress: { phase: 'crawling', pages_crawled: 240, pages_discovered: 610 },
  },
  AuditList: {
    data: [
      {
        audit_id: AUDIT_ID,
        domain: 'https://example.com',
        status: 'completed',
        score: 78,
        completed_at: AT.done,
        created_at: AT.created,
      },
    ],
    has_more: false,
    next_cursor: null,
  },
  Usage: {
    tier: 'pro',
    period_start: '2026-11-01T00:00:00.000Z',
    period_end: '2026-12-01T00:00:00.000Z',
    audits_limit: 500,
    audits_used: 42,
    audits_remaining: 458,
    burst: { limit: 10, window_seconds: 60 },
    retrieval: { limit: 600, window_seconds: 60 },
  },
  Webhook: webhook,
  CreateWebhookRequest: { url: 'https://hooks.example.net/audits', events: ['audit.completed', 'audit.failed'] },
  Delivery: {
    delivery_id: 'dlv_4fQ9sT2vX7zB1nM3kL5pR8wY',
    event: 'audit.completed',
    audit_id: AUDIT_ID,
    url: webhook.url,
    state: 'delivered',
    created_at: AT.done,
    next_attempt_at: null,
    redeliverable_until: '2026-11-27T09:01:12.530Z',
    attempts: [
      {
        attempt: 1,
        trigger: 'automatic',
        started_at: '2026-11-20T09:01:12.611Z',
        duration_ms: 143,
        status_code: 200,
        error_class: null,
        error_message: null,
        response_excerpt: 'ok',
        next_attempt_at: null,
      },
    ],
  },
  ReportLink: {
    audit_id: AUDIT_ID,
    url: `https://audits.example.net/v1/reports/${AUDIT_ID}.pdf?expires=1795165272&key=rsk_3hT8qW1zK5nB7vC2&signature=Zr8m0v1Q3yC2k7dT9sLwq4Xb5nH6pJ0eR1uA8fG2iYo`,
    expires_at: '2026-11-20T10:01:12.000Z',
  },
  ReportRendering: {
    audit_id: AUDIT_ID,
    domain: 'https://example.com',
    status: 'rendering',
    estimated_completion: '2026-11-20T09:01:20.000Z',
  },
  Branding: {
    display_name: 'Northwind Digital',
    primary_color: '#1f6feb',
    footer_text: 'Prepared by Northwind Digital',
    contact_line: 'audits@northwind.example',
    logo: { content_type: 'image/png', byte_size: 18342 },
    updated_at: AT.created,
  },
  AuditFailedEvent: {
    audit_id: AUDIT_ID,
    domain: 'https://example.com',
    error: { code: 'domain_unreachable', message: 'https://example.com did not answer within 30 seconds' },
    attempts: 4,
    failed_at: '2026-11-20T11:40:03.118Z',
  },
  AuditRetriedEvent: {
    audit_id: AUDIT_ID,
    domain: 'https://example.com',
    attempt: 1,
    max_retries: 3,
    next_attempt_at: '2026-11-20T09:06:12.530Z',
    error: { code: 'target_rate_limited', message: 'https://example.com answered 429 Too Many Requests' },
  },
  SiteRegressedEvent: {
    site_id: 'site_01jd7q8d1f3g5h7j9k1m3n5p7q',
    audit_id: AUDIT_ID,
    previous_audit_id: 'aud_01JCZ8M2P4R6T8V0X2Z4B6D8F0',
    score: 71,
    previous_score: 78,
    new_findings: [
      { fingerprint: finding.fingerprint, analyzer: finding.analyzer, severity: 'high', title: finding.title },
    ],
  },
  PutBrandingRequest: {
    display_name: 'Northwind Digital',
    primary_color: '#1f6feb',
    footer_text: 'Prepared by Northwind Digital',
    contact_line: 'audits@northwind.example',
    logo: null,
  },
  ...WEBHOOK_LIFECYCLE_EXAMPLES,
  ...NOTIFICATION_EXAMPLES,
  ...SHARE_EXAMPLES,
};

/** The error envelope as the API answers with `code`, its message taken from the error reference. */
export function errorExample(code: ErrorCode): object {
  return {
    error: {
      code,
      message: ERROR_CATALOG[code].when,
      request_id: 'req_7fK2mQ9xV4bN8cR1tY6w',
      docs_url: `https://audits.example.net/docs/errors#${code}`,
    },
  };
}

type Schema = Record<string, unknown>;

/**
 * An example for a schema built from the named examples: a $ref takes its component's, a oneOf its
 * first branch's, arrays one item, objects each property; other leaves take const, enum or default.
 */
export function exampleFor(schema: Schema): unknown {
  const ref = schema.$ref as string | undefined;
  if (ref) return COMPONENT_EXAMPLES[ref.replace('#/components/schemas/', '')];
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) return branches.map(exampleFor).find((e) => e !== undefined);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema) return schema.default;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('array')) {
    const item = exampleFor((schema.items ?? {}) as Schema);
    return item === undefined ? [] : [item];
  }
  if (types.includes('object')) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(
      Object.entries(properties)
        .map(([name, property]) => [name, exampleFor(property)])
        .filter(([, value]) => value !== undefined),
    );
  }
  if (types.includes('null')) return null;
  if (types.includes('boolean')) return false;
  return undefined;
}

/** Gives every JSON body of the operations without an example one built by exampleFor. */
export function withExamples(paths: Record<string, Record<string, Schema>>): void {
  for (const operation of Object.values(paths).flatMap((item) => Object.values(item))) {
    const bodies = [operation.requestBody, ...Object.values((operation.responses ?? {}) as Record<string, Schema>)];
    for (const body of bodies as (Schema | undefined)[]) {
      const media = (body?.content as Record<string, Schema> | undefined)?.['application/json'];
      if (!media || 'example' in media || 'examples' in media) continue;
      const example = exampleFor(media.schema as Schema);
      if (example !== undefined) body!.content = { 'application/json': { ...media, example } };
    }
  }
}
