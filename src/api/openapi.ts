import { auditPaths, brandingPaths, reportPaths, usagePaths } from './openapi-paths';
import { webhookPaths } from './openapi-webhook-paths';
import { componentSchemas, openApiParts } from './openapi-parts';
import { withExamples } from './openapi-examples';
import { webhookEvents } from './openapi-webhooks';
import { sitePaths } from './openapi-sites';
import { auditPagePaths } from './openapi-pages';
import { notificationPaths, NOTIFICATIONS_TAG } from './openapi-notifications';
import { sharePaths, SHARES_TAG } from './openapi-shares';

/** The sections of the reference (/docs), in order. */
const TAGS = [
  { name: 'Audits', description: 'Trigger an audit of a site, follow it, and read its findings.' },
  { name: 'Reports', description: 'The white-label PDF report of a completed audit, behind a signed link.' },
  { name: 'Branding', description: 'How the PDF reports of the workspace look: name, colour, logo, footer.' },
  {
    name: 'Webhooks',
    description:
      'Endpoints that receive the events: test events, secret rotation, the log of every delivery, recovery, and the auto-disable of an endpoint that keeps failing.',
  },
  SHARES_TAG,
  NOTIFICATIONS_TAG,
  { name: 'Usage', description: 'The quota of the current period and the rate limits.' },
  {
    name: 'Sites',
    description:
      'Monitored sites: audited on a schedule (each a Temporal Schedule), with their history, skipped runs and the triage of their findings.',
  },
  {
    name: 'Webhook events',
    description:
      'What the service POSTs to your webhook endpoints. Each delivery is signed twice: X-Service-Signature (HMAC of ' +
      'the body) and the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), which also ' +
      'sign the timestamp so that replays can be refused.',
  },
];

/** Files every operation of a group under a tag, unless it names its own. */
function tagged(tag: string, paths: Record<string, object>): Record<string, object> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(Object.entries(item).map(([method, op]) => [method, { tags: [tag], ...(op as object) }])),
    ]),
  );
}

/** The OpenAPI 3.1 document, generated from the same JSON Schemas ajv validates with. */
export function buildOpenApi(serverUrl: string): object {
  const paths = {
    ...tagged('Audits', auditPaths(openApiParts)),
    ...tagged('Audits', auditPagePaths(openApiParts)),
    ...tagged('Reports', reportPaths(openApiParts)),
    ...tagged('Branding', brandingPaths(openApiParts)),
    ...tagged('Webhooks', webhookPaths(openApiParts)),
    ...tagged('Usage', usagePaths(openApiParts)),
    ...tagged('Sites', sitePaths(openApiParts)),
    ...tagged('Notifications', notificationPaths(openApiParts)),
    ...tagged('Shares', sharePaths(openApiParts)),
  };
  withExamples(paths as never);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Domain Audit API',
      version: 'v1',
      description:
        'Audit a website (security, SEO, performance, accessibility, DNS and e-mail hygiene). Keys starting with svc_test_ ' +
        'return deterministic synthetic audits and consume no quota; svc_live_ keys run real crawls. Every error is ' +
        `answered with the same envelope; the codes are listed at ${new URL('/docs/errors', serverUrl).href}.`,
      contact: { name: 'Domain Audit API', url: new URL('/', serverUrl).href },
      // Proprietary: the name says so and links to the service where the account's terms are agreed.
      license: {
        name: 'Proprietary: use under the terms of your Domain Audit account',
        url: new URL('/', serverUrl).href,
      },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl, description: 'This service' }],
    security: [{ bearer: [] }],
    tags: TAGS,
    components: {
      schemas: componentSchemas(),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_live_… or svc_test_… API key' } },
    },
    paths,
    webhooks: webhookEvents(),
  };
}
