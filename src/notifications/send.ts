import type { Clock } from '../clock';
import type { Db } from '../db/knex';
import type { Mailer } from '../mail/mailer';
import { outboundRequest } from '../outbound/client';
import { classifyOutboundError } from '../outbound/errors';
import { parseCidrList, type CidrList } from '../outbound/policy';
import { storableText } from '../text/storable';
import { responseExcerpt } from '../webhooks/excerpt';
import type { NotificationAttemptOutcome } from '../../workflows/contracts';
import { loadNotification, type LoadedNotification } from './repository';

const EXCERPT_BYTES = 1024;
// The operator-configured mock receiver of test mode is trusted, wherever it lives.
const ANYWHERE = parseCidrList('0.0.0.0/0,::/0');
/** A 429's Retry-After is followed up to this long (the longest default delivery delay). */
const LONGEST_RETRY_AFTER_MS = 6 * 3600_000;
/** An SMTP exchange gets this much more than an HTTP POST before it counts as timed out. */
const MAIL_GRACE_MS = 30_000;

export interface NotificationSendDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  /** DELIVERY_TIMEOUT_MS: the bound of one POST. */
  timeoutMs: number;
  /** OUTBOUND_ALLOW_CIDRS. */
  allow: CidrList;
  /** Where test-mode notifications go instead of their target (TEST_WEBHOOK_MOCK_URL or the API's mock receiver). */
  testMockUrl: string;
}

/** How one send went; never an exception. */
interface SendResult {
  statusCode: number | null;
  /** null when sent (2xx, or the mailer took it); else non_2xx, mail or the network error's class. */
  errorClass: string | null;
  errorMessage: string | null;
  /** Trying again cannot help: a 4xx other than 429 (a removed or revoked webhook, a bad payload), a 5xx SMTP reply. */
  permanent: boolean;
  retryAfterMs: number | null;
}

/**
 * One attempt of a logged notification (docs/decisions.md, "Notification channels"), recorded in its
 * row. The target's answer is an outcome, never an exception: 2xx sends it; a 4xx other than 429 ends
 * it; a 429, a 5xx or a network error is retried on the schedule (a 429 not before its Retry-After).
 * Only a database error throws. An attempt is sent at most once once recorded: running its step again
 * returns without sending. `store` wraps the write of the outcome (the activity waits out an outage).
 */
export async function attemptNotification(
  deps: NotificationSendDeps,
  input: { notificationId: string; attempt: number; last: boolean },
  store: <T>(step: () => Promise<T>) => Promise<T> = (step) => step(),
): Promise<NotificationAttemptOutcome> {
  const finished = (delivered: boolean) => ({ done: true, delivered, retryAfterMs: null });
  const row = await loadNotification(deps.db, input.notificationId);
  if (!row) return finished(false);
  if (row.state !== 'pending') return finished(row.state === 'delivered');
  if (row.channel_deleted_at) {
    await deps
      .db('notifications')
      .where({ id: row.id, state: 'pending' })
      .update({ state: 'failed', last_error_class: 'channel_removed', last_error_message: null });
    return finished(false);
  }
  if (row.attempts >= input.attempt) return { done: false, delivered: false, retryAfterMs: null };
  const startedAt = deps.clock.now();
  const result = await send(deps, row);
  const delivered = result.errorClass === null;
  const done = delivered || result.permanent || input.last;
  await store(() =>
    deps
      .db('notifications')
      .where({ id: row.id, state: 'pending' })
      .update({
        attempts: input.attempt,
        last_attempt_at: startedAt,
        last_status_code: result.statusCode,
        last_error_class: result.errorClass,
        last_error_message: result.errorMessage,
        state: delivered ? 'delivered' : done ? 'failed' : 'pending',
        delivered_at: delivered ? startedAt : null,
      }),
  );
  return { done, delivered, retryAfterMs: done ? null : result.retryAfterMs };
}

/** Test-mode notifications go to the mock receiver, whatever their type: nothing reaches a real inbox or channel. */
async function send(deps: NotificationSendDeps, row: LoadedNotification): Promise<SendResult> {
  if (row.mode === 'test') {
    const body =
      row.channel_type === 'email' ? JSON.stringify({ to: row.target, ...JSON.parse(row.payload) }) : row.payload;
    return post(deps, { url: deps.testMockUrl, body, allow: ANYWHERE });
  }
  if (row.channel_type === 'email') return mail(deps, row);
  return post(deps, { url: row.target, body: row.payload, allow: deps.allow });
}

/** The POST of a Slack or Teams message. Redirects are not followed (a 3xx ends it, as a 4xx does). */
async function post(deps: NotificationSendDeps, request: { url: string; body: string; allow: CidrList }) {
  try {
    const response = await outboundRequest({
      ...request,
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      timeoutMs: deps.timeoutMs,
      maxBodyBytes: EXCERPT_BYTES,
    });
    const status = response.status;
    if (status >= 200 && status <= 299)
      return { statusCode: status, errorClass: null, errorMessage: null, permanent: false, retryAfterMs: null };
    return {
      statusCode: status,
      errorClass: 'non_2xx',
      errorMessage: responseExcerpt(response.body, response.headers) || null,
      permanent: status !== 429 && status < 500,
      retryAfterMs: status === 429 ? retryAfterMs(response.headers['retry-after'], deps.clock.now()) : null,
    };
  } catch (err) {
    return failed(classifyOutboundError(err), err);
  }
}

/** An e-mail through the mailer; an SMTP 5xx reply (no such mailbox) is permanent, anything else is retried. */
async function mail(deps: NotificationSendDeps, row: LoadedNotification): Promise<SendResult> {
  const message = JSON.parse(row.payload) as { subject: string; text: string };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the mailer did not answer in time')), deps.timeoutMs + MAIL_GRACE_MS);
  });
  try {
    await Promise.race([deps.mailer.send({ to: row.target, ...message }), timeout]);
    return { statusCode: null, errorClass: null, errorMessage: null, permanent: false, retryAfterMs: null };
  } catch (err) {
    const reply = (err as { responseCode?: unknown }).responseCode;
    return { ...failed('mail', err), permanent: typeof reply === 'number' && reply >= 500 && reply < 600 };
  } finally {
    clearTimeout(timer);
  }
}

function failed(errorClass: string, err: unknown): SendResult {
  const message = err instanceof Error ? err.message : String(err);
  return {
    statusCode: null,
    errorClass,
    errorMessage: storableText(message.slice(0, 500)),
    permanent: false,
    retryAfterMs: null,
  };
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 §10.2.3), at most LONGEST_RETRY_AFTER_MS; null when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | null {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return null;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now.getTime();
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(0, ms), LONGEST_RETRY_AFTER_MS);
}
