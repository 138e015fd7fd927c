import assert from 'node:assert/strict';
import type { KnownBlock } from '@slack/types';
import { clip, emailMessage, slackMessage, teamsMessage } from '../../src/notifications/formats';
import type { NoticeFacts } from '../../src/notifications/facts';
import { noticeOf, type Notice } from '../../src/notifications/notice';

// The official Adaptive Cards library (its UMD build: the ESM one does not load in Node), for its
// parser and validator: what it reports is what a Teams client would drop or refuse.
const AdaptiveCards = require('adaptivecards/dist/adaptivecards.js') as typeof import('adaptivecards');

/** Text from outside with every kind of markup the targets would act on. */
const HOSTILE =
  'x <!channel> & <https://evil.example|click> *bold* _it_ [link](https://evil.example) **b** `c` <b>h</b>';
const DASHBOARD = 'https://audits.example.net/';
const AT = new Date('2026-11-20T09:00:00.000Z');

const FACTS: NoticeFacts[] = [
  {
    event: 'audit.failed',
    auditId: 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z',
    domain: 'https://example.com',
    error: { code: 'domain_unreachable', message: HOSTILE },
    attempts: 4,
    failedAt: AT,
  },
  {
    event: 'site.regressed',
    siteId: 'site_01jd7q8d1f3g5h7j9k1m3n5p7q',
    auditId: 'aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z',
    domain: 'https://example.com',
    score: 71,
    previousScore: 78,
    newFindings: Array.from({ length: 7 }, (_, i) => ({ severity: 'high', title: `${HOSTILE} ${i}` })),
  },
  {
    event: 'webhook.failing',
    webhookId: 'wh_01JD7Q6B2C4D6E8F0G2H4J6K8M',
    url: `https://hooks.example.net/in?q=${encodeURIComponent(HOSTILE)}`,
    failingSince: AT,
    disableAt: new Date('2026-11-25T09:00:00.000Z'),
  },
  {
    event: 'webhook.disabled',
    webhookId: 'wh_01JD7Q6B2C4D6E8F0G2H4J6K8M',
    url: 'https://hooks.example.net/in',
    disabledAt: AT,
    reason: 'consecutive_failures',
  },
];

const notices = (mode: 'live' | 'test' = 'live') =>
  FACTS.map((facts) => noticeOf(facts, { dashboardUrl: DASHBOARD, mode }));

/** The text of every mrkdwn text object in a JSON value: what Slack parses for markup. */
function mrkdwnTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(mrkdwnTexts);
  if (!value || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const own = object.type === 'mrkdwn' && typeof object.text === 'string' ? [object.text] : [];
  return [...own, ...Object.values(object).flatMap(mrkdwnTexts)];
}

describe('notification formats', () => {
  describe('the notice', () => {
    it('links each event to its page of the dashboard, under /test for test data', () => {
      const live = notices();
      assert.deepEqual(
        live.map((n) => n.links.map((l) => l.url)),
        [
          ['https://audits.example.net/audits/aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z'],
          [
            'https://audits.example.net/sites/site_01jd7q8d1f3g5h7j9k1m3n5p7q',
            'https://audits.example.net/audits/aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z',
          ],
          ['https://audits.example.net/webhooks/wh_01JD7Q6B2C4D6E8F0G2H4J6K8M'],
          ['https://audits.example.net/webhooks/wh_01JD7Q6B2C4D6E8F0G2H4J6K8M'],
        ],
      );
      assert.equal(
        notices('test')[0].links[0].url,
        'https://audits.example.net/test/audits/aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z',
      );
    });

    it('names five new findings of a regression and counts the rest', () => {
      const findings = notices()[1]
        .facts.find((f) => f.name === 'New findings')!
        .value.split('\n');
      assert.equal(findings.length, 6);
      assert.equal(findings[5], 'and 2 more');
      assert.match(notices()[1].summary, /scored 71 \(-7 since the previous one\) with 7 new findings\./);
    });
  });

  describe('Slack', () => {
    it('is valid JSON of Block Kit blocks (typed by @slack/types) within Slack’s limits', () => {
      for (const notice of notices()) {
        // Compile-time: the message is what Slack's own type definitions call a message with blocks.
        const message: { text: string; blocks: KnownBlock[] } = slackMessage(notice);
        const parsed = JSON.parse(JSON.stringify(message)) as typeof message;
        assert.deepEqual(parsed, message);
        assert.deepEqual(
          parsed.blocks.map((b) => b.type),
          ['header', 'section', 'section', 'section', 'context'],
        );
        const [header, summary, facts, links] = parsed.blocks as Array<Record<string, any>>;
        assert.equal(header.text.type, 'plain_text');
        assert.ok(header.text.text.length <= 150);
        assert.equal(summary.text.type, 'plain_text');
        assert.ok(facts.fields.length >= 1 && facts.fields.length <= 10);
        for (const field of facts.fields) assert.ok(field.type === 'plain_text' && field.text.length <= 2000);
        assert.equal(links.text.type, 'mrkdwn');
        for (const link of notice.links) assert.ok(links.text.text.includes(`<${link.url}|${link.label}>`));
        assert.ok(parsed.text.includes(`<${notice.links[0].url}|${notice.links[0].label}>`), parsed.text);
      }
    });

    it('keeps text from outside literal: plain_text where it is shown, &<> escaped where Slack parses mrkdwn', () => {
      const failed = slackMessage(notices()[0]);
      const summary = failed.blocks[1] as { text: { type: string; text: string } };
      assert.ok(summary.text.text.includes(HOSTILE), 'shown as it is, in a plain_text object');
      // Only the escaped form reaches a field Slack parses: no mention, no link of the sender's.
      const webhook = slackMessage(notices()[2]);
      assert.ok(webhook.text.startsWith('Webhook failing: https://hooks.example.net/in?q='), webhook.text);
      const mrkdwn = [failed, webhook].flatMap((m) => [m.text, ...mrkdwnTexts(m.blocks)]);
      assert.equal(mrkdwn.length, 4, 'each message: its text and its links section');
      for (const text of mrkdwn) assert.doesNotMatch(text, /<!channel>|<https:\/\/evil/);
      const escaped = slackMessage({ ...notices()[3], title: 'a <!here> & b' });
      assert.ok(
        escaped.text.startsWith('a &lt;!here&gt; &amp; b: <https://audits.example.net/webhooks/'),
        escaped.text,
      );
    });

    it('cuts what is over a limit, with an ellipsis and never half a character', () => {
      const long = { ...notices()[0], title: `${'😀'.repeat(100)}`, summary: 'y'.repeat(5000) };
      const [header, summary] = slackMessage(long).blocks as Array<{ text: { text: string } }>;
      assert.ok(header.text.text.length <= 150 && header.text.text.endsWith('…'));
      assert.doesNotMatch(header.text.text, /[\uD800-\uDBFF]…$/, 'no lone high surrogate before the ellipsis');
      assert.equal(summary.text.text.length, 3000);
      assert.equal(clip('abc', 3), 'abc');
    });
  });

  describe('Teams', () => {
    function card(message: ReturnType<typeof teamsMessage>) {
      const [attachment] = message.attachments;
      return attachment.content;
    }

    it('is a message with one Adaptive Card 1.4 that the Adaptive Cards library parses and validates clean', () => {
      for (const notice of notices()) {
        const message = JSON.parse(JSON.stringify(teamsMessage(notice))) as ReturnType<typeof teamsMessage>;
        assert.equal(message.type, 'message');
        assert.equal(message.attachments.length, 1);
        assert.equal(message.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
        assert.equal(message.attachments[0].contentUrl, null);
        const content = card(message);
        const parsed = new AdaptiveCards.AdaptiveCard();
        const context = new AdaptiveCards.SerializationContext();
        parsed.parse(content, context);
        const parseEvents = Array.from({ length: context.eventCount }, (_, i) => context.getEventAt(i).message);
        assert.deepEqual(parseEvents, [], 'the parser reports nothing unknown or invalid');
        assert.deepEqual(
          parsed.validateProperties().validationEvents.map((e) => e.message),
          [],
        );
        // Everything we send survives the round trip (Teams' own msteams width aside).
        const { msteams: _teams, ...standard } = content;
        assert.deepEqual(parsed.toJSON(), standard);
        assert.deepEqual(
          content.actions.map((a) => [a.type, a.url]),
          notice.links.map((l) => ['Action.OpenUrl', l.url]),
        );
      }
    });

    it('puts text from outside only in TextRuns (no Markdown), never in a TextBlock', () => {
      const content = card(teamsMessage(notices()[0]));
      const blocks = content.body as Array<{ type: string; text?: string; inlines?: Array<{ text: string }> }>;
      for (const block of blocks.filter((b) => b.type === 'TextBlock')) assert.ok(!block.text!.includes('<!channel>'));
      const runs = blocks.flatMap((b) => b.inlines ?? []).map((inline) => inline.text);
      assert.ok(
        runs.some((text) => text.includes(HOSTILE)),
        'the error message, verbatim, in a TextRun',
      );
      assert.ok(runs.includes('Error: ') && runs.includes('domain_unreachable'));
    });
  });

  describe('e-mail', () => {
    it('has a one-line subject and a text body with the facts and the dashboard link', () => {
      const notice: Notice = { ...notices()[0], title: 'Audit failed:\r\nBcc: victim@example.com' };
      const mail = emailMessage(notice, { id: 'nch_1' });
      assert.equal(mail.subject, '[Domain Audit] Audit failed: Bcc: victim@example.com');
      assert.doesNotMatch(mail.subject, /[\r\n]/);
      assert.ok(mail.text.includes('Open the audit: https://audits.example.net/audits/aud_01JD7Q5W3K8V2N4M6P8R0T2X4Z'));
      assert.ok(mail.text.includes('Error: domain_unreachable'));
      assert.ok(mail.text.includes('DELETE /v1/notification-channels/nch_1'));
      const regressed = emailMessage(notices()[1], { id: 'nch_1' });
      assert.match(regressed.text, /New findings: high: .* 0\n {2}high: /, 'a fact of several lines stays indented');
    });
  });
});
