import type { Notice } from './notice';

/**
 * A notice in each target's own message format (docs/decisions.md, "Notification channels"). Text
 * from outside never becomes markup: Slack gets it as `plain_text` objects, and with `&`, `<`, `>`
 * entity-escaped where it parses mrkdwn (the notification's `text` and the links, where `<!channel>`
 * or `<url|…>` would otherwise work); Teams gets it in `TextRun`s, which Adaptive Cards render
 * without Markdown.
 */

const PRODUCT = 'Domain Audit';

/** Slack's Block Kit limits (docs.slack.dev, "Blocks"): header 150, section text 3,000, field 2,000, 10 fields. */
const SLACK = { header: 150, text: 3000, field: 2000, fields: 10 } as const;

/**
 * A Slack incoming-webhook message: `text` (the notification, and what clients without blocks show)
 * and Block Kit `blocks`. The dashboard links are mrkdwn links rather than buttons: a button's click
 * is an interaction, which an incoming webhook's app has no endpoint to receive.
 */
export function slackMessage(notice: Notice) {
  const [main] = notice.links;
  const links = notice.links.map((link) => `<${escapeSlack(link.url)}|${escapeSlack(link.label)}>`).join('  ·  ');
  return {
    text: clip(`${escapeSlack(notice.title)}: <${escapeSlack(main.url)}|${escapeSlack(main.label)}>`, SLACK.text),
    blocks: [
      { type: 'header' as const, text: plain(notice.title, SLACK.header) },
      { type: 'section' as const, text: plain(notice.summary, SLACK.text) },
      {
        type: 'section' as const,
        fields: notice.facts.slice(0, SLACK.fields).map((fact) => plain(`${fact.name}\n${fact.value}`, SLACK.field)),
      },
      { type: 'section' as const, text: { type: 'mrkdwn' as const, text: links } },
      { type: 'context' as const, elements: [plain(`${PRODUCT} · ${notice.event}`, SLACK.text)] },
    ],
  };
}

/** `&`, `<` and `>` as Slack's mrkdwn wants them escaped (its only control characters). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function plain(text: string, max: number) {
  return { type: 'plain_text' as const, text: clip(text, max), emoji: false };
}

/**
 * A Teams message carrying one Adaptive Card (1.4, what Teams renders), as both Teams incoming
 * webhooks and Workflows ("Post to a channel when a webhook request is received") take it.
 */
export function teamsMessage(notice: Notice) {
  const run = (text: string, style: object = {}) => ({ type: 'RichTextBlock', inlines: [textRun(text, style)] });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body: [
            { type: 'TextBlock', text: `${PRODUCT} · ${notice.event}`, size: 'Small', isSubtle: true, wrap: true },
            run(notice.title, {
              size: 'Medium',
              weight: 'Bolder',
              color: notice.tone === 'attention' ? 'Attention' : 'Warning',
            }),
            run(notice.summary),
            ...notice.facts.map((fact) => ({
              type: 'RichTextBlock',
              inlines: [textRun(`${fact.name}: `, { weight: 'Bolder' }), textRun(fact.value)],
            })),
          ],
          actions: notice.links.map((link) => ({ type: 'Action.OpenUrl', title: link.label, url: link.url })),
        },
      },
    ],
  };
}

function textRun(text: string, style: object = {}) {
  return { type: 'TextRun', text, ...style };
}

/** The e-mail of a notice: a subject line and a plain-text body (the mailer sends text only). */
export function emailMessage(notice: Notice, channel: { id: string }): { subject: string; text: string } {
  return {
    subject: clip(`[${PRODUCT}] ${oneLine(notice.title)}`, 200),
    text: [
      notice.summary,
      '',
      ...notice.facts.map((fact) => `${fact.name}: ${fact.value.replace(/\n/g, '\n  ')}`),
      '',
      ...notice.links.map((link) => `${link.label}: ${link.url}`),
      '',
      '--',
      `This address is notification channel ${channel.id} of its workspace for ${notice.event}.`,
      `DELETE /v1/notification-channels/${channel.id} stops these messages.`,
    ].join('\n'),
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** At most `max` characters (UTF-16 units, as Slack counts), never splitting a surrogate pair, "…" when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut--;
  return `${text.slice(0, cut)}…`;
}
