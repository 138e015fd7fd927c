import { siteHistoryCsvQuerySchema } from '../schemas/api';
import type { OpenApiParts } from './openapi-parts';

// Monitored sites in the OpenAPI document: each a Temporal Schedule of audits (README "Monitoring").

const SITE_ID = 'site_01jd7q8d1f3g5h7j9k1m3n5p7q';
const AUDIT_ID = 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z';
const site = {
  site_id: SITE_ID,
  domain: 'https://example.com',
  schedule: 'weekly',
  time_zone: 'Europe/Berlin',
  at: '09:00',
  weekday: 'mon',
  day_of_month: null,
  tier: null,
  render: 'sample',
  paused: false,
  paused_reason: null,
  next_run_at: '2026-11-30T08:00:00.000Z',
  last_audit_id: AUDIT_ID,
  created_at: '2026-11-20T09:00:00.000Z',
  updated_at: '2026-11-20T09:00:00.000Z',
};
const page = (item: object) => ({ data: [item], has_more: false, next_cursor: null });

/** A JSON body with its example (the reference shows one for every body). */
function body(p: OpenApiParts, schema: object, example: unknown) {
  return { content: { 'application/json': { ...p.json(schema).content['application/json'], example } } };
}

function siteIdParam(p: OpenApiParts) {
  return p.idParam('site_id', 'site');
}

/** Creating and listing sites. */
function collection(p: OpenApiParts): Record<string, object> {
  const { ref, errors, common, pageParams, rateHeaders } = p;
  return {
    '/sites': {
      post: {
        operationId: 'createSite',
        summary: 'Monitor a site: audits on a schedule (pro and up)',
        description:
          'Creates the site and its Temporal Schedule `site-{site_id}`. Each firing triggers an audit through the same rules ' +
          'as POST /audits (quota, burst limit, first audit of a site free); a firing those rules refuse is recorded as a ' +
          'skipped run with the error code (GET /sites/{site_id}/runs) and never retried. Pro accounts keep 10 sites per ' +
          'environment, team 50, enterprise any number. Test keys create test sites, whose runs are synthetic audits. ' +
          'The schedule runs at `at` in `time_zone` (an IANA name; default UTC and the minute of creation), on `weekday` ' +
          '(weekly) or `day_of_month` (monthly, 1–28), following daylight saving: a time the clocks skip does not run ' +
          'that day. A weekday with a daily or monthly schedule, or a day of the month with a daily or weekly one, is ' +
          'invalid_request. `render` is passed to every run as in POST /audits: `all` (team and enterprise; other tiers ' +
          'get 403 tier_required and nothing is stored) renders every crawled page.',
        requestBody: {
          required: true,
          ...body(p, ref('CreateSiteRequest'), {
            domain: 'https://example.com',
            schedule: 'weekly',
            time_zone: 'Europe/Berlin',
            at: '09:00',
            weekday: 'mon',
          }),
        },
        responses: {
          '201': { description: 'Created.', headers: rateHeaders, ...body(p, ref('Site'), site) },
          ...errors(
            'invalid_request',
            'invalid_domain',
            'payload_too_large',
            'tier_required',
            'site_limit_reached',
            'site_already_exists',
            ...common,
          ),
        },
      },
      get: {
        operationId: 'listSites',
        summary: 'List the sites of this workspace and environment, oldest first',
        description: 'Cursor-paginated like GET /audits: pass next_cursor as cursor until it is null.',
        parameters: pageParams,
        responses: {
          '200': { description: 'A page of sites.', headers: rateHeaders, ...body(p, ref('SiteList'), page(site)) },
          ...errors('invalid_request', 'tier_required', ...common),
        },
      },
    },
  };
}

/** One site: read, change, delete. */
function item(p: OpenApiParts): Record<string, object> {
  const { ref, errors, common, rateHeaders } = p;
  return {
    '/sites/{site_id}': {
      get: {
        operationId: 'getSite',
        summary: 'Fetch one site',
        description:
          'next_run_at is when its schedule fires next, in UTC, daylight saving in time_zone included (null while paused).',
        parameters: [siteIdParam(p)],
        responses: {
          '200': { description: 'The site.', headers: rateHeaders, ...body(p, ref('Site'), site) },
          ...errors('site_not_found', 'tier_required', ...common),
        },
      },
      patch: {
        operationId: 'updateSite',
        summary: 'Change the schedule and its time, or pause and resume the site',
        description:
          'Fields left out keep their values; a changed time_zone keeps the local `at`. Changing to a weekly or monthly ' +
          'schedule without weekday or day_of_month takes the day of creation in time_zone; changing away drops it. ' +
          'Pausing pauses its Temporal Schedule. `render: "all"` is refused below team (tier_required), as on creation. ' +
          'Resuming is refused (site_limit_reached) while the running sites already ' +
          'fill the tier limit, e.g. after a downgrade paused some (paused_reason tier_limit).',
        parameters: [siteIdParam(p)],
        requestBody: { required: true, ...body(p, ref('PatchSiteRequest'), { paused: true }) },
        responses: {
          '200': {
            description: 'The site as changed.',
            headers: rateHeaders,
            ...body(p, ref('Site'), { ...site, paused: true, next_run_at: null }),
          },
          ...errors(
            'invalid_request',
            'payload_too_large',
            'site_not_found',
            'site_limit_reached',
            'tier_required',
            ...common,
          ),
        },
      },
      delete: {
        operationId: 'deleteSite',
        summary: 'Stop monitoring: the site, its runs, its triage and its schedule are deleted',
        description: 'Its audits stay (GET /audits).',
        parameters: [siteIdParam(p)],
        responses: { '204': { description: 'Deleted.' }, ...errors('site_not_found', 'tier_required', ...common) },
      },
    },
  };
}

/** A site's completed audits and its runs. */
function records(p: OpenApiParts): Record<string, object> {
  const { ref, errors, common, pageParams, rateHeaders } = p;
  const history = {
    audit_id: AUDIT_ID,
    completed_at: '2026-11-20T09:01:12.530Z',
    score: 78,
    grade: 'C',
    categories: { security: { score: 64, weight: 30 } },
  };
  const run = {
    run_id: 'run_01jd7q9a2b4c6d8e0f2g4h6j8k',
    scheduled_at: '2026-11-27T09:00:00.000Z',
    outcome: 'skipped',
    audit_id: null,
    skip_reason: 'audit_quota_exceeded',
    skip_message: 'the monthly quota of 50 audits is used up; it resets at 2026-12-01T00:00:00.000Z',
  };
  return {
    '/sites/{site_id}/history': {
      get: {
        operationId: 'getSiteHistory',
        summary: "The site's completed audits with their scores, newest first",
        description: 'Audits of the same domain in this workspace and environment, cursor-paginated.',
        parameters: [siteIdParam(p), ...pageParams],
        responses: {
          '200': {
            description: 'A page of audits.',
            headers: rateHeaders,
            ...body(p, ref('SiteHistory'), page(history)),
          },
          ...errors('invalid_request', 'site_not_found', 'tier_required', ...common),
        },
      },
    },
    '/sites/{site_id}/runs': {
      get: {
        operationId: 'listSiteRuns',
        summary: "The firings of the site's schedule: the audit each started, or why it was skipped",
        description: 'Newest first, cursor-paginated. A skipped run names the error code the trigger refused it with.',
        parameters: [siteIdParam(p), ...pageParams],
        responses: {
          '200': { description: 'A page of runs.', headers: rateHeaders, ...body(p, ref('SiteRunList'), page(run)) },
          ...errors('invalid_request', 'site_not_found', 'tier_required', ...common),
        },
      },
    },
  };
}

const HISTORY_CSV =
  'audit_id,completed_at,score,grade,security,seo,performance,accessibility,best_practices,dns_email\r\n' +
  `${AUDIT_ID},2026-11-20T09:01:12.530Z,78,C,64,91,83,88,90,52\r\n` +
  'aud_01JD0B2C4D6E8F0G2H4J6K8M0N,2026-11-13T09:01:09.114Z,81,B,70,91,,88,90,52\r\n';

/** The whole history as a CSV download. */
function historyCsv(p: OpenApiParts): Record<string, object> {
  const { errors, common, rateHeaders } = p;
  const filters = Object.entries(siteHistoryCsvQuerySchema.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));
  return {
    '/sites/{site_id}/history.csv': {
      get: {
        operationId: 'exportSiteHistory',
        summary: "The site's whole history as a CSV download, newest first",
        description:
          'The fields of GET /sites/{site_id}/history, every completed audit streamed in one file (no pagination), with ' +
          'the category scores in a column each (empty when the audit did not score the category). RFC 4180, UTF-8, a ' +
          'header row, CRLF line ends; the same CSV writer as the audit exports.',
        parameters: [siteIdParam(p), ...filters],
        responses: {
          '200': {
            description: 'The history as CSV.',
            headers: {
              ...rateHeaders,
              'Content-Disposition': {
                schema: { type: 'string' },
                description: 'attachment; filename="{site_id}-history.csv"',
              },
            },
            content: { 'text/csv': { schema: { type: 'string' }, example: HISTORY_CSV } },
          },
          ...errors('invalid_request', 'site_not_found', 'tier_required', ...common),
        },
      },
    },
  };
}

/** Triage of one of the site's findings. */
function triage(p: OpenApiParts): Record<string, object> {
  const { ref, errors, common, rateHeaders } = p;
  const example = {
    site_id: SITE_ID,
    fingerprint: 'fp_3k9x2m7q1w',
    status: 'accepted',
    note: 'Third-party widget; tracked with the vendor.',
    set_by: 'key:key_3f9K2mQ8xV4bN7cR',
    updated_at: '2026-11-20T10:00:00.000Z',
  };
  const fingerprint = {
    name: 'fingerprint',
    in: 'path',
    required: true,
    description: "A finding's fingerprint, as in the findings of the site's audits.",
    schema: { type: 'string', pattern: '^fp_[0-9a-z]{1,64}$' },
  };
  return {
    '/sites/{site_id}/findings/{fingerprint}': {
      put: {
        operationId: 'triageSiteFinding',
        summary: 'Triage a finding of the site: open, ignored or accepted, with a note',
        description:
          'Later audits of the site carry `triage` on findings with this fingerprint; ignored and accepted ones never count ' +
          'as new (comparison, site.regressed). The score is not changed. The fingerprint must have been reported by a ' +
          'completed audit of the site (else finding_not_found).',
        parameters: [siteIdParam(p), fingerprint],
        requestBody: {
          required: true,
          ...body(p, ref('PutTriageRequest'), { status: 'accepted', note: example.note }),
        },
        responses: {
          '200': { description: 'The triage now in force.', headers: rateHeaders, ...body(p, ref('Triage'), example) },
          ...errors(
            'invalid_request',
            'payload_too_large',
            'site_not_found',
            'finding_not_found',
            'tier_required',
            ...common,
          ),
        },
      },
    },
  };
}

/** Every path of the Sites section. */
export function sitePaths(p: OpenApiParts): Record<string, object> {
  return { ...collection(p), ...item(p), ...records(p), ...historyCsv(p), ...triage(p) };
}
