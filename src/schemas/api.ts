/**
 * Request and response shapes of the REST API, one file per resource; ajv validates requests with
 * these at the edge, and the OpenAPI document is built from them.
 */
export { errorEnvelopeSchema, pageQuerySchema, type PageQuery } from './api-common';
export * from './api-audits';
export * from './api-usage';
export * from './api-webhooks';
export * from './api-reports';
export * from './api-sites';
export * from './api-notifications';
export * from './api-shares';
