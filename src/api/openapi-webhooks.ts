import type { AuditFailureCode } from '../../workflows/contracts';
import type { AuditFailedEvent } from '../schemas/webhook-events';
import { DELIVERY_EVENTS, type DeliveryEvent } from '../webhooks/events';
import { deliveryHeaders } from '../webhooks/signing';
import { COMPONENT_EXAMPLES } from './openapi-examples';

// The OpenAPI 3.1 `webhooks` section: what the service POSTs to a customer's endpoint, per event.

/** Every header of a delivery (src/webhooks/signing.ts deliveryHeaders), described for receivers. */
const HEADER_DOCS: Record<string, string> = {
  'x-service-event': 'The event name, e.g. audit.completed.',
  'x-service-signature':
    '`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string. During the grace period ' +
    'of a secret rotation it lists two, comma-separated: `sha256=<new>, sha256=<previous>`; accept the delivery when ' +
    'one matches. It does not cover the timestamp: prefer webhook-signature, which does.',
  'x-service-audit-id': 'The audit the event is about (absent for webhook.test and webhook.disabled).',
  'x-service-delivery': 'Delivery id: the same on every attempt of this event to this webhook (deduplicate on it).',
  'x-service-timestamp': 'Unix seconds when this attempt was signed.',
  'x-service-attempt': 'Attempt number: 1, then 2, 3… for retries and manual redeliveries.',
  'webhook-id': 'Standard Webhooks: the delivery id.',
  'webhook-timestamp': 'Standard Webhooks: Unix seconds when this attempt was signed; reject old ones (replays).',
  'webhook-signature':
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
    'base64-decoded part of a `whsec_` secret (a secret of another form: its UTF-8 bytes). Re-signed on every attempt. ' +
    'During the grace period of a secret rotation it lists two, space-separated (new, then previous), as Standard ' +
    'Webhooks libraries expect.',
};

// The event schemas list the failure codes of the workflows: compiling fails when the two lists part.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const failureCodesAgree: Same<AuditFailedEvent['error']['code'], AuditFailureCode> = true;
void failureCodesAgree;

const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function headerParams(event: string, body: unknown): object[] {
  const headers = deliveryHeaders({
    secrets: [EXAMPLE_SECRET],
    event,
    auditId: (body as { audit_id?: string }).audit_id ?? null,
    deliveryId: 'dlv_4fQ9sT2vX7zB1nM3kL5pR8wY',
    attempt: 1,
    body: JSON.stringify(body),
    timestampSeconds: 1795165272,
  });
  return Object.entries(headers)
    .filter(([name]) => name !== 'content-type')
    .map(([name, example]) => {
      const description = HEADER_DOCS[name];
      if (!description) throw new Error(`the webhook header ${name} has no description in the OpenAPI document`);
      return { name, in: 'header', required: true, description, schema: { type: 'string' }, example };
    });
}

/** Each event's body and words; a Record, so an event added to DELIVERY_EVENTS must be described here. */
const EVENT_DOCS: Record<DeliveryEvent, { schema: string; summary: string; description: string; rules?: string }> = {
  'audit.completed': {
    schema: 'Audit',
    summary: 'An audit completed',
    description: 'The body is the audit JSON, byte for byte what GET /audits/{audit_id} returns.',
  },
  'audit.failed': {
    schema: 'AuditFailedEvent',
    summary: 'An audit failed for good',
    description: 'After the last automatic retry, or at once for a failure that is never retried (robots_disallowed).',
  },
  'audit.retried': {
    schema: 'AuditRetriedEvent',
    summary: 'An audit attempt failed; a retry is scheduled',
    description: 'Sent once per automatic retry, before it runs.',
  },
  'site.regressed': {
    schema: 'SiteRegressedEvent',
    summary: 'A monitored site regressed',
    description:
      'Only to webhooks whose events list it. Sent with audit.completed when the audit of a monitored site scores 5 or ' +
      'more points below the previous one or has a new high or critical finding.',
  },
  'webhook.disabled': {
    schema: 'WebhookDisabledEvent',
    summary: 'Another webhook of the workspace was disabled',
    description:
      'Only to webhooks whose events list it. Sent when a webhook of the same workspace is disabled because every ' +
      'delivery to it failed for WEBHOOK_DISABLE_AFTER_MS (5 days by default); its owners are e-mailed too.',
  },
  'webhook.test': {
    schema: 'WebhookTestEvent',
    summary: 'A test event',
    description:
      'Sent by POST /webhooks/{webhook_id}/test to that webhook only (whatever its events), signed like every ' +
      'delivery; test-mode webhooks send it to the mock receiver.',
    rules:
      ' Sent once, at once: the answer to the request reports how it went, the delivery log keeps it, and it is never retried.',
  },
};
const EVENTS = DELIVERY_EVENTS.map((event) => ({ event, ...EVENT_DOCS[event] }));

const DELIVERY_RULES =
  ' Answer with any 2xx status within 5 seconds. Anything else is retried after 1 min, 5 min, 30 min, 2 h and 6 h; ' +
  'the delivery log (GET /webhooks/{webhook_id}/deliveries) shows every attempt. Verify the signature before trusting the body.';

/** One entry per event, each a POST with the event's body and the delivery headers. */
export function webhookEvents(): Record<string, object> {
  return Object.fromEntries(
    EVENTS.map(({ event, schema, summary, description, rules }) => {
      const example = COMPONENT_EXAMPLES[schema];
      return [
        event,
        {
          post: {
            operationId: `on${event.replace(/(^|\.)(\w)/g, (_m, _dot, c: string) => c.toUpperCase())}`,
            summary,
            description: description + (rules ?? DELIVERY_RULES),
            tags: ['Webhook events'],
            security: [],
            parameters: headerParams(event, example),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } },
            },
            responses: {
              '200': { description: 'Received (any 2xx status counts).' },
              '4XX': {
                description: rules
                  ? 'Not received: reported in the answer to the test request.'
                  : 'Not received: the delivery is retried on the schedule above.',
              },
            },
          },
        },
      ];
    }),
  );
}
