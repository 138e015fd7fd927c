import { listAuditPagesQuerySchema, FINDING_ID_PATTERN } from '../schemas/api-pages';
import { pageQuerySchema } from '../schemas/api';
import type { OpenApiParts } from './openapi-parts';

// An audit's pages, a finding's URLs and the CSV exports in the OpenAPI document (docs/decisions.md,
// "Pages and exports"); openapi.ts files them under Audits.

const AUDIT_ID = 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z';
const page = {
  url: 'https://example.com/pricing',
  status: 200,
  depth: 1,
  inlinks: 38,
  outlinks: 52,
  title: 'Pricing | Example',
  content_type: 'text/html; charset=utf-8',
  bytes: 48211,
  response_ms: 182,
  indexable: true,
  canonical: 'https://example.com/pricing',
  redirect_to: null,
};
const redirect = {
  ...page,
  url: 'http://example.com/pricing',
  status: 301,
  depth: 1,
  inlinks: 2,
  outlinks: 0,
  title: null,
  content_type: null,
  bytes: 0,
  response_ms: 41,
  indexable: false,
  canonical: null,
  redirect_to: 'https://example.com/pricing',
};
const NEXT = 'WyJwYWdlcyIsImF1ZF8wMUpEN1E1VzNLOFYyTjRNNlA4UjBUMlg0WiIsMV0';
const envelope = {
  audit_id: AUDIT_ID,
  domain: 'https://example.com',
  status: 'running',
  estimated_completion: '2026-11-20T09:02:00.000Z',
};
const PAGES_CSV =
  'url,status,depth,inlinks,outlinks,title,content_type,bytes,response_ms,indexable,canonical,redirect_to\r\n' +
  'https://example.com/,200,0,412,57,"Example, Inc. | ""Audits""",text/html; charset=utf-8,48211,182,true,https://example.com/,\r\n';
const FINDINGS_CSV =
  'finding_id,analyzer,category,severity,title,count,url,depth,referrers\r\n' +
  'fnd_1,SEO_HTTP_STATUS_ERROR,seo,high,Pages answer with an error status,2,https://example.com/old,2,3\r\n' +
  'fnd_1,SEO_HTTP_STATUS_ERROR,seo,high,Pages answer with an error status,2,https://example.com/gone,3,1\r\n' +
  'fnd_2,SEC_HSTS_MISSING,security,high,HSTS header missing,0,,,\r\n';

/** A JSON body with its example. */
function body(p: OpenApiParts, schema: object, example: unknown) {
  return { content: { 'application/json': { ...p.json(schema).content['application/json'], example } } };
}

const queryParams = (properties: Record<string, object>) =>
  Object.entries(properties).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));

/** A CSV download, or the status envelope (JSON) while the audit is not complete. */
function csvResponse(p: OpenApiParts, what: string, example: string) {
  return {
    description: `${what} as CSV (RFC 4180, UTF-8, header row), or the status envelope (JSON) while the audit is not complete.`,
    headers: {
      ...p.rateHeaders,
      'Content-Disposition': {
        schema: { type: 'string' },
        description: 'attachment; filename="{audit_id}-pages.csv" (or -findings.csv)',
      },
    },
    content: {
      'text/csv': { schema: { type: 'string' }, example },
      'application/json': { schema: p.ref('AuditStatusEnvelope'), example: envelope },
    },
  };
}

/** Listing an audit's pages and a finding's URLs, and the CSV exports; openapi.ts files them under Audits. */
export function auditPagePaths(p: OpenApiParts): Record<string, object> {
  return { ...listings(p), ...downloads(p) };
}

/** A page of the audit's crawled URLs, and of a finding's URLs. */
function listings(p: OpenApiParts): Record<string, object> {
  const { ref, errors, common, auditIdParam, rateHeaders } = p;
  const findingIdParam = {
    name: 'finding_id',
    in: 'path',
    required: true,
    description: "A finding's id, as in the audit's findings.",
    schema: { type: 'string', pattern: FINDING_ID_PATTERN },
  };
  const listOrEnvelope = (schema: object) => ({ oneOf: [schema, ref('AuditStatusEnvelope')] });
  return {
    '/audits/{audit_id}/pages': {
      get: {
        operationId: 'listAuditPages',
        summary: 'Every URL the crawl requested (pages, redirects, error answers), in crawl order',
        description:
          'Cursor-paginated: pass next_cursor as cursor until it is null. The filters combine; the depth filters leave out ' +
          "pages of unknown depth (found only in a sitemap). A cursor is a position in this audit's list: one from another " +
          'audit or list is refused, and with other filters the list continues after that position. The status envelope ' +
          'answers while the audit is not complete.',
        parameters: [auditIdParam, ...queryParams(listAuditPagesQuerySchema.properties)],
        responses: {
          '200': {
            description: 'A page of the crawled URLs, or the status envelope.',
            headers: rateHeaders,
            ...body(p, listOrEnvelope(ref('AuditPageList')), {
              data: [page, redirect],
              has_more: true,
              next_cursor: NEXT,
            }),
          },
          ...errors('invalid_request', 'audit_not_found', ...common),
        },
      },
    },
    '/audits/{audit_id}/findings/{finding_id}/urls': {
      get: {
        operationId: 'listFindingUrls',
        summary: 'Every URL a finding affects (the audit JSON lists the first 100)',
        description:
          "Cursor-paginated like /pages, in the order of the finding's urls (shallowest first). The status envelope " +
          'answers while the audit is not complete.',
        parameters: [auditIdParam, findingIdParam, ...queryParams(pageQuerySchema.properties)],
        responses: {
          '200': {
            description: "A page of the finding's URLs, or the status envelope.",
            headers: rateHeaders,
            ...body(p, listOrEnvelope(ref('FindingUrlList')), {
              data: [{ url: 'https://example.com/old', depth: 2, referrers: 3 }],
              has_more: false,
              next_cursor: null,
            }),
          },
          ...errors('invalid_request', 'audit_not_found', 'finding_not_found', ...common),
        },
      },
    },
  };
}

/** The CSV downloads. */
function downloads(p: OpenApiParts): Record<string, object> {
  const { errors, common, auditIdParam } = p;
  return {
    '/audits/{audit_id}/pages.csv': {
      get: {
        operationId: 'exportAuditPages',
        summary: 'Every crawled URL as a CSV download',
        description:
          'The columns of GET /audits/{audit_id}/pages, in crawl order, streamed. Text cells starting with = + - @, a tab ' +
          'or a carriage return get a leading apostrophe so that spreadsheets do not run them as formulas.',
        parameters: [auditIdParam],
        responses: { '200': csvResponse(p, 'Every crawled URL', PAGES_CSV), ...errors('audit_not_found', ...common) },
      },
    },
    '/audits/{audit_id}/findings.csv': {
      get: {
        operationId: 'exportAuditFindings',
        summary: 'Every finding with every URL it affects as a CSV download',
        description:
          'One row per finding and URL (a finding without URLs: one row with empty url, depth and referrers), findings in ' +
          'the order of the audit JSON; count is how many URLs the finding affects. Formula-looking cells are escaped as ' +
          'in pages.csv.',
        parameters: [auditIdParam],
        responses: {
          '200': csvResponse(p, 'Every finding and URL', FINDINGS_CSV),
          ...errors('audit_not_found', ...common),
        },
      },
    },
  };
}
