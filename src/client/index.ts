import createClient, { type Client } from 'openapi-fetch';
import type { components, paths, webhooks } from './schema.gen';
import { specSignatureMatches, standardSignatureMatches } from './webhook-signatures';

/**
 * The typed client for customers of the API (README "Typed client"): openapi-fetch over the types
 * openapi-typescript generates from the OpenAPI document, and the verification of webhook deliveries
 * (./webhook-signatures.ts). It imports nothing of the service's own code (test/unit/client-webhooks.test.ts).
 */

export type { components, paths, webhooks } from './schema.gen';
export type Schemas = components['schemas'];
export type Audit = Schemas['Audit'];
export type AuditClient = Client<paths>;

export interface AuditClientOptions {
  /** The API's base URL, with its /v1, e.g. https://audits.example.net/v1 */
  baseUrl: string;
  /** svc_live_… or svc_test_… */
  apiKey: string;
  /** Another fetch (a proxy agent, a test double); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

/**
 * `client.GET('/audits/{audit_id}', { params: { path: { audit_id } } })` and so on: paths, parameters,
 * bodies and answers are typed from the document; every call carries the API key.
 */
export function createAuditClient(options: AuditClientOptions): AuditClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export type WebhookEvent = keyof webhooks;
type Body<E extends WebhookEvent> = webhooks[E]['post'] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** A verified delivery: its event, ids and parsed body, typed by event. */
export type VerifiedWebhook = {
  [E in WebhookEvent]: { event: E; deliveryId: string; attempt: number; timestamp: number; payload: Body<E> };
}[WebhookEvent];

export class WebhookVerificationError extends Error {}

/** Five minutes, as the Standard Webhooks libraries default to. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Checks a delivery before its body is trusted: the Standard Webhooks signature over
 * `{webhook-id}.{webhook-timestamp}.{body}` and a timestamp within `toleranceSeconds` of now (so a
 * captured delivery cannot be replayed later), and the X-Service-Signature over the body. Pass the
 * raw body exactly as received: a re-serialized JSON would not match. During a secret rotation's
 * grace period each header carries two signatures (new and previous secret): either secret verifies,
 * and `secret` may list both while receivers switch. Throws WebhookVerificationError.
 */
export function verifyWebhook(input: {
  secret: string | readonly string[];
  headers: Headers | Record<string, string | string[] | undefined>;
  body: string | Buffer;
  toleranceSeconds?: number;
  now?: Date;
}): VerifiedWebhook {
  const header = headerReader(input.headers);
  const body = typeof input.body === 'string' ? input.body : input.body.toString('utf8');
  const id = header('webhook-id');
  const timestamp = Number(header('webhook-timestamp'));
  if (!id || !Number.isInteger(timestamp))
    throw new WebhookVerificationError('missing webhook-id or webhook-timestamp');
  const now = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} seconds away from now`);
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  if (!standardSignatureMatches(header('webhook-signature') ?? '', secrets, { id, timestamp, body }))
    throw new WebhookVerificationError('webhook-signature does not match the body');
  if (!specSignatureMatches(header('x-service-signature') ?? '', secrets, body))
    throw new WebhookVerificationError('X-Service-Signature does not match the body');
  const event = header('x-service-event') as WebhookEvent;
  return {
    event,
    deliveryId: id,
    attempt: Number(header('x-service-attempt') ?? 1),
    timestamp,
    payload: JSON.parse(body) as never,
  };
}

function headerReader(headers: Headers | Record<string, string | string[] | undefined>) {
  if (headers instanceof Headers) return (name: string) => headers.get(name) ?? undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v[0] : v]));
  return (name: string) => lower.get(name);
}
