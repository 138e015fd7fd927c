import { auditPaths, brandingPaths, reportPaths, usagePaths, webhookPaths } from './openapi-paths';
import { componentSchemas, openApiParts } from './openapi-parts';

/** The OpenAPI 3.1 document, generated from the same JSON Schemas ajv validates with. */
export function buildOpenApi(serverUrl: string): object {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Domain Audit API',
      version: 'v1',
      description:
        'Audit a website (security, SEO, performance, accessibility, DNS and e-mail hygiene). Keys starting with svc_test_ ' +
        'return deterministic synthetic audits and consume no quota; svc_live_ keys run real crawls.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: {
      schemas: componentSchemas(),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'svc_live_… or svc_test_… API key' } },
    },
    paths: {
      ...auditPaths(openApiParts),
      ...reportPaths(openApiParts),
      ...brandingPaths(openApiParts),
      ...webhookPaths(openApiParts),
      ...usagePaths(openApiParts),
    },
  };
}
