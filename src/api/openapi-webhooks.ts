import type { AuditFailureCode } from '../../workflows/contracts';
import type { AuditFailedEvent } from '../schemas/webhook-events';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../webhooks/events';
import { deliveryHeaders } from '../webhooks/signing';
import { COMPONENT_EXAMPLES } from './openapi-examples';

// The OpenAPI 3.1 `webhooks` section: what the service POSTs to a customer's endpoint, per event.

/** Every header of a delivery (src/webhooks/signing.ts deliveryHeaders), described for receivers. */
const HEADER_DOCS: Record<string, string> = {
  'x-service-event': 'The event name, e.g. audit.completed.',
  'x-service-signature':
    '`sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string. It does not cover the ' +
    'timestamp: prefer webhook-signature, which does.',
  'x-service-audit-id': 'The audit the event is about.',
  'x-service-delivery': 'Delivery id: the same on every attempt of this event to this webhook (deduplicate on it).',
  'x-service-timestamp': 'Unix seconds when this attempt was signed.',
  'x-service-attempt': 'Attempt number: 1, then 2, 3… for retries and manual redeliveries.',
  'webhook-id': 'Standard Webhooks: the delivery id.',
  'webhook-timestamp': 'Standard Webhooks: Unix seconds when this attempt was signed; reject old ones (replays).',
  'webhook-signature':
    'Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
    'base64-decoded part of a `whsec_` secret (a secret of another form: its UTF-8 bytes). Re-signed on every attempt.',
};

// The event schemas list the failure codes of the workflows: compiling fails when the two lists part.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const failureCodesAgree: Same<AuditFailedEvent['error']['code'], AuditFailureCode> = true;
void failureCodesAgree;

const EXAMPLE_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

function headerParams(event: string, body: unknown): object[] {
  const headers = deliveryHeaders({
    secret: EXAMPLE_SECRET,
    event,
    auditId: (body as { audit_id: string }).audit_id,
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

/** Each event's body and words; a Record, so an event added to WEBHOOK_EVENTS must be described here. */
const EVENT_DOCS: Record<WebhookEvent, { schema: string; summary: string; description: string }> = {
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
};
const EVENTS = WEBHOOK_EVENTS.map((event) => ({ event, ...EVENT_DOCS[event] }));

const DELIVERY_RULES =
  ' Answer with any 2xx status within 5 seconds. Anything else is retried after 1 min, 5 min, 30 min, 2 h and 6 h; ' +
  'the delivery log (GET /webhooks/{webhook_id}/deliveries) shows every attempt. Verify the signature before trusting the body.';

/** One entry per event, each a POST with the event's body and the delivery headers. */
export function webhookEvents(): Record<string, object> {
  return Object.fromEntries(
    EVENTS.map(({ event, schema, summary, description }) => {
      const example = COMPONENT_EXAMPLES[schema];
      return [
        event,
        {
          post: {
            operationId: `on${event.replace(/(^|\.)(\w)/g, (_m, _dot, c: string) => c.toUpperCase())}`,
            summary,
            description: description + DELIVERY_RULES,
            tags: ['Webhook events'],
            security: [],
            parameters: headerParams(event, example),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` }, example } },
            },
            responses: {
              '200': { description: 'Received (any 2xx status counts).' },
              '4XX': { description: 'Not received: the delivery is retried on the schedule above.' },
            },
          },
        },
      ];
    }),
  );
}
