import type { Mode } from '../schemas/audit';
import type { NotificationEvent } from '../../workflows/contracts';
import type { NoticeFacts } from './facts';

/**
 * A notification before it takes a target's format (formats.ts): plain text throughout, whatever
 * came from outside (a domain, an error message, a finding's title, a webhook URL) included; each
 * format escapes it for its own markup.
 */
export interface Notice {
  event: NotificationEvent;
  /** One line: what happened and to what. */
  title: string;
  /** A sentence or two. */
  summary: string;
  facts: Array<{ name: string; value: string }>;
  /** The pages of the dashboard that show it (the audit, the site, the webhook), the main one first. */
  links: Array<{ label: string; url: string }>;
  /** How loud the formats make it: a failure, or a warning. */
  tone: 'attention' | 'warning';
}

/** New findings named in a message; the rest are counted. */
const LISTED_FINDINGS = 5;

/**
 * The notice of a notification's facts, linking to the dashboard at `dashboardUrl` (PUBLIC_BASE_URL)
 * in the notification's environment (test data under /test, docs/dashboard.md).
 */
export function noticeOf(facts: NoticeFacts, where: { dashboardUrl: string; mode: Mode }): Notice {
  const page = (path: string) =>
    `${where.dashboardUrl.replace(/\/+$/, '')}${where.mode === 'test' ? `/test${path}` : path}`;
  switch (facts.event) {
    case 'audit.failed':
      return {
        event: facts.event,
        title: `Audit failed: ${facts.domain}`,
        summary: `The audit of ${facts.domain} failed after ${plural(facts.attempts, 'attempt')}: ${facts.error.message}`,
        facts: [
          { name: 'Domain', value: facts.domain },
          { name: 'Error', value: facts.error.code },
          { name: 'Attempts', value: String(facts.attempts) },
          { name: 'Failed at', value: facts.failedAt.toISOString() },
        ],
        links: [{ label: 'Open the audit', url: page(`/audits/${facts.auditId}`) }],
        tone: 'attention',
      };
    case 'site.regressed':
      return regressedNotice(facts, page);
    case 'webhook.failing':
      return {
        event: facts.event,
        title: `Webhook failing: ${facts.url}`,
        summary:
          `Every delivery to ${facts.url} has failed since ${facts.failingSince.toISOString()}.` +
          (facts.disableAt ? ` Unless one gets through, it will be disabled at ${facts.disableAt.toISOString()}.` : ''),
        facts: [
          { name: 'Webhook', value: facts.webhookId },
          { name: 'URL', value: facts.url },
          { name: 'Failing since', value: facts.failingSince.toISOString() },
          ...(facts.disableAt ? [{ name: 'Disabled at', value: facts.disableAt.toISOString() }] : []),
        ],
        links: [{ label: 'Open the webhook', url: page(`/webhooks/${facts.webhookId}`) }],
        tone: 'warning',
      };
    case 'webhook.disabled':
      return {
        event: facts.event,
        title: `Webhook disabled: ${facts.url}`,
        summary: `Every delivery to ${facts.url} failed, so it was disabled at ${facts.disabledAt.toISOString()}: nothing more is sent to it until it is enabled again.`,
        facts: [
          { name: 'Webhook', value: facts.webhookId },
          { name: 'URL', value: facts.url },
          { name: 'Disabled at', value: facts.disabledAt.toISOString() },
          { name: 'Reason', value: facts.reason },
        ],
        links: [{ label: 'Open the webhook', url: page(`/webhooks/${facts.webhookId}`) }],
        tone: 'attention',
      };
  }
}

function regressedNotice(
  facts: Extract<NoticeFacts, { event: 'site.regressed' }>,
  page: (path: string) => string,
): Notice {
  const delta = facts.score - facts.previousScore;
  const listed = facts.newFindings.slice(0, LISTED_FINDINGS).map((f) => `${f.severity}: ${f.title}`);
  const more = facts.newFindings.length - listed.length;
  const findings = more > 0 ? [...listed, `and ${more} more`] : listed;
  return {
    event: facts.event,
    title: `Site regressed: ${facts.domain}`,
    summary:
      `The latest audit of ${facts.domain} scored ${facts.score} (${delta >= 0 ? '+' : ''}${delta} since the previous one)` +
      (facts.newFindings.length ? ` with ${plural(facts.newFindings.length, 'new finding')}.` : '.'),
    facts: [
      { name: 'Score', value: `${facts.score} (was ${facts.previousScore})` },
      ...(findings.length ? [{ name: 'New findings', value: findings.join('\n') }] : []),
    ],
    links: [
      { label: 'Open the site', url: page(`/sites/${facts.siteId}`) },
      { label: 'Open the audit', url: page(`/audits/${facts.auditId}`) },
    ],
    tone: 'attention',
  };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
