import { listDeliveriesQuerySchema } from '../schemas/api-webhooks';
import type { OpenApiParts } from './openapi-parts';

const deliveryQueryParams = Object.entries(listDeliveriesQuerySchema.properties).map(([name, schema]) => ({
  name,
  in: 'query',
  required: false,
  schema,
}));

const page = (items: object) => ({
  type: 'object',
  properties: {
    data: { type: 'array', items },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'] },
  },
});

/** Webhooks: configuration, test events, secret rotation, the delivery log, redelivery and recovery. */
export function webhookPaths(p: OpenApiParts): Record<string, object> {
  return { ...configurationPaths(p), ...lifecyclePaths(p), ...deliveryLogPaths(p) };
}

/** Create, list, change and remove. */
function configurationPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, webhookIdParam, pageParams } = p;
  return {
    '/webhooks': {
      post: {
        operationId: 'createWebhook',
        summary: 'Configure a webhook (pro and up); the secret is returned only here',
        requestBody: { required: true, ...json(ref('CreateWebhookRequest')) },
        responses: {
          '201': ok('Created.', ref('Webhook')),
          ...errors('invalid_request', 'payload_too_large', 'tier_required', ...common),
        },
      },
      get: {
        operationId: 'listWebhooks',
        summary: 'List webhooks with their status (never the secret)',
        parameters: pageParams,
        responses: {
          '200': ok('A page of webhooks.', page(ref('Webhook'))),
          ...errors('invalid_request', 'tier_required', ...common),
        },
      },
    },
    '/webhooks/{webhook_id}': {
      patch: {
        operationId: 'updateWebhook',
        summary: 'Change the URL or the events, or enable a disabled webhook',
        description:
          'A new URL passes the same outbound policy as on creation; nothing is stored when any field is refused. ' +
          '`status: "enabled"` turns a disabled webhook back on (and a new URL or enabling starts its failure count afresh).',
        parameters: [webhookIdParam],
        requestBody: { required: true, ...json(ref('PatchWebhookRequest')) },
        responses: {
          '200': ok('The webhook as it now is.', ref('Webhook')),
          ...errors('invalid_request', 'payload_too_large', 'webhook_not_found', 'tier_required', ...common),
        },
      },
      delete: {
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook: later events are not POSTed to it',
        parameters: [webhookIdParam],
        responses: { '204': { description: 'Removed.' }, ...errors('webhook_not_found', 'tier_required', ...common) },
      },
    },
  };
}

/** Test events and secret rotation. */
function lifecyclePaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, webhookIdParam } = p;
  return {
    '/webhooks/{webhook_id}/test': {
      post: {
        operationId: 'sendTestEvent',
        summary: 'Send one signed webhook.test event at once and report how it went',
        description:
          'The event (see the webhook.test event) is signed like every delivery and sent at once, also to a disabled ' +
          'webhook; the answer reports the outcome. It is logged as a delivery and never retried. Test-mode webhooks ' +
          'send it to the mock receiver. No request body.',
        parameters: [webhookIdParam],
        responses: {
          '200': ok('Sent: delivered or not.', ref('WebhookTestResult')),
          ...errors('invalid_request', 'webhook_not_found', 'tier_required', ...common),
        },
      },
    },
    '/webhooks/{webhook_id}/rotate-secret': {
      post: {
        operationId: 'rotateWebhookSecret',
        summary: 'A new secret, with a grace period during which the previous one signs too',
        description:
          'The new secret is shown in this answer only. Until previous_secret_expires_at every delivery carries two ' +
          'signatures in each header (`X-Service-Signature: sha256=<new>, sha256=<previous>`, and two space-separated ' +
          '`v1,` values in webhook-signature), so receivers switch without refusing a delivery. The body is optional.',
        parameters: [webhookIdParam],
        requestBody: { required: false, ...json(ref('RotateSecretRequest')) },
        responses: {
          '200': ok('Rotated.', ref('RotateSecretResponse')),
          ...errors('invalid_request', 'payload_too_large', 'webhook_not_found', 'tier_required', ...common),
        },
      },
    },
  };
}

/** The delivery log, manual redelivery and recovery. */
function deliveryLogPaths(p: OpenApiParts): Record<string, object> {
  const { ref, json, errors, ok, common, idParam, webhookIdParam } = p;
  return {
    '/webhooks/{webhook_id}/deliveries': {
      get: {
        operationId: 'listDeliveries',
        summary: 'The delivery log: one entry per delivery with every attempt, newest first',
        parameters: [webhookIdParam, ...deliveryQueryParams],
        responses: {
          '200': ok('A page of deliveries.', page(ref('Delivery'))),
          ...errors('invalid_request', 'webhook_not_found', 'tier_required', ...common),
        },
      },
    },
    '/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': {
      post: {
        operationId: 'redeliver',
        summary:
          'Manual redelivery (within 7 days of the event); the same redeliver signal operators send with the Temporal CLI',
        parameters: [webhookIdParam, idParam('delivery_id', 'delivery')],
        responses: {
          '202': ok('Redelivery requested.', { type: 'object' }),
          ...errors(
            'webhook_not_found',
            'delivery_not_found',
            'redelivery_window_expired',
            'webhook_disabled',
            'tier_required',
            ...common,
          ),
        },
      },
    },
    '/webhooks/{webhook_id}/recover': {
      post: {
        operationId: 'recoverDeliveries',
        summary: 'Send every failed delivery since a time again (within the 7-day window)',
        description:
          'Each failed delivery created at or after `since` (no earlier than 7 days ago; test events excepted) gets ' +
          'one more attempt, a manual one with its own delivery id, as a redelivery does.',
        parameters: [webhookIdParam],
        requestBody: { required: true, ...json(ref('RecoverRequest')) },
        responses: {
          '202': ok('Queued.', ref('RecoverResponse')),
          ...errors(
            'invalid_request',
            'payload_too_large',
            'webhook_not_found',
            'webhook_disabled',
            'tier_required',
            ...common,
          ),
        },
      },
    },
  };
}
