// Examples of the webhook lifecycle's schemas (docs/decisions.md, "Webhook lifecycle"), part of the
// OpenAPI document's COMPONENT_EXAMPLES; Redocly's lint validates each against its schema.

const WEBHOOK_ID = 'wh_01JD7Q6B2C4D6E8F0G2H4J6K8M';

export const WEBHOOK_LIFECYCLE_EXAMPLES: Record<string, unknown> = {
  PatchWebhookRequest: { status: 'enabled' },
  RotateSecretRequest: { grace_seconds: 86400 },
  RotateSecretResponse: {
    webhook_id: WEBHOOK_ID,
    secret: 'whsec_3q8Ck0y9xZsK2u4bV7nN1mQpR5tW6eYh8jL0aS2dF4g=',
    previous_secret_expires_at: '2026-11-21T09:00:00.000Z',
  },
  WebhookTestResult: {
    delivery_id: 'dlv_7hK2mQ9xV4bN8cR1tY6wZ3pL',
    delivered: false,
    status_code: 503,
    duration_ms: 87,
    error: 'non_2xx',
    error_message: null,
  },
  RecoverRequest: { since: '2026-11-18T00:00:00.000Z' },
  RecoverResponse: { queued: 12 },
  WebhookTestEvent: { type: 'webhook.test', webhook_id: WEBHOOK_ID, sent_at: '2026-11-20T09:00:00.000Z' },
  WebhookDisabledEvent: {
    webhook_id: 'wh_01JD7Q9N3P5R7T9V1X3Z5B7D9F',
    url: 'https://old-hooks.example.net/audits',
    disabled_at: '2026-11-25T09:00:00.000Z',
    reason: 'consecutive_failures',
  },
};
