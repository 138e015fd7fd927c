import type { AuditClient, Schemas } from '../client';
import { CliError, type Audit, type StatusEnvelope, type Tier, type TriggerResponse } from './types';

type TriggerRequest = Schemas['TriggerAuditRequest'];

/**
 * The CLI's two calls, through the typed client: trigger (POST /audits) and poll (GET
 * /audits/{audit_id}) until the audit completes. Polling starts fast (a test-mode audit completes
 * in well under a second) and slows to one request every 2 s, well within the retrieval limit of
 * 100 requests a minute (README "Tiers and limits"); a 429 waits for its Retry-After.
 */

export interface WaitOptions {
  timeoutMs: number;
  /** Each status envelope seen while waiting (for the progress line). */
  onStatus?: (status: StatusEnvelope) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 2000;
/** Consecutive transient failures (network, 5xx) tolerated while polling. */
const MAX_TRANSIENT = 5;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface ErrorBody {
  error?: { code?: string; message?: string; request_id?: string };
}

/** "code: message (request_id …)" from an error envelope, else the HTTP status. */
export function describeApiError(response: Response, body: unknown): string {
  const error = (body as ErrorBody | undefined)?.error;
  if (error?.code)
    return `${error.code}: ${error.message ?? ''}${error.request_id ? ` (request_id ${error.request_id})` : ''}`;
  return `HTTP ${response.status} ${response.statusText}`.trim();
}

function unreachable(err: unknown): CliError {
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  return new CliError(`cannot reach the API: ${(err as Error).message}${cause ? ` (${cause})` : ''}`);
}

export async function triggerAudit(
  client: AuditClient,
  domain: string,
  options: { tier?: Tier; render?: TriggerRequest['render'] } = {},
): Promise<TriggerResponse> {
  const { tier, render } = options;
  let result;
  try {
    result = await client.POST('/audits', {
      body: { domain, ...(tier ? { tier } : {}), ...(render ? { render } : {}) },
    });
  } catch (err) {
    throw unreachable(err);
  }
  if (!result.data)
    throw new CliError(`the audit was not triggered: ${describeApiError(result.response, result.error)}`);
  return result.data;
}

function isCompleted(body: Audit | StatusEnvelope): body is Audit {
  return body.status === 'completed';
}

/** One poll: the audit, a status envelope, or a delay before the next poll (429, transient failure). */
async function poll(
  client: AuditClient,
  auditId: string,
): Promise<{ audit: Audit } | { status: StatusEnvelope } | { retryAfterMs?: number; transient: string }> {
  let result;
  try {
    result = await client.GET('/audits/{audit_id}', { params: { path: { audit_id: auditId } } });
  } catch (err) {
    return { transient: unreachable(err).message };
  }
  const { data, error, response } = result;
  if (data) return isCompleted(data) ? { audit: data } : { status: data };
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    return { retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5000, transient: '' };
  }
  if (response.status >= 500) return { transient: describeApiError(response, error) };
  throw new CliError(`cannot read audit ${auditId}: ${describeApiError(response, error)}`);
}

/** Polls until the audit completes; a failed audit, a timeout or a refused request is a CliError. */
export async function waitForAudit(client: AuditClient, auditId: string, options: WaitOptions): Promise<Audit> {
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  let delay = FIRST_POLL_MS;
  let transient = 0;
  for (;;) {
    await sleep(Math.max(0, Math.min(delay, deadline - now())));
    const outcome = await poll(client, auditId);
    if ('audit' in outcome) return outcome.audit;
    if ('status' in outcome) {
      transient = 0;
      options.onStatus?.(outcome.status);
      if (outcome.status.status === 'failed') {
        const error = outcome.status.error;
        throw new CliError(`audit ${auditId} failed: ${error ? `${error.code}: ${error.message}` : 'no reason given'}`);
      }
    } else if (outcome.transient && ++transient > MAX_TRANSIENT) {
      throw new CliError(`gave up waiting for audit ${auditId}: ${outcome.transient}`);
    }
    if (now() >= deadline)
      throw new CliError(`audit ${auditId} did not complete within ${Math.round(options.timeoutMs / 1000)} s`);
    delay =
      'retryAfterMs' in outcome && outcome.retryAfterMs ? outcome.retryAfterMs : Math.min(delay * 1.5, MAX_POLL_MS);
  }
}
