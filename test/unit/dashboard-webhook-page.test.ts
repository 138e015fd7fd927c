import assert from 'node:assert/strict';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { WebhookDetailPage, type WebhookDetailProps } from '../../src/dashboard/pages/webhook-detail';
import { DELIVERY_FILTER_CHOICES } from '../../src/webhooks/recovery';

const NOW = '2026-11-28T10:00:00.000Z';

/** A webhook's page (docs/decisions.md, "Dashboard (turn 3)": "Send test event", "Rotate secret", "Enable", filters, "Next"). */
describe('dashboard webhook page (rendered to HTML)', () => {
  const props: WebhookDetailProps = {
    basePath: '/test',
    csrfToken: 'tok',
    canEdit: true,
    now: new Date(NOW),
    webhook: {
      webhook_id: 'wh_1',
      url: 'https://h.example/x',
      events: ['audit.completed'],
      created_at: NOW,
      status: 'enabled',
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
    },
    disableAfterMs: 5 * 86_400_000,
    deliveries: [],
    nextCursor: null,
    filter: { status: '', event: '', since: '', choices: DELIVERY_FILTER_CHOICES },
  };

  it('offers "Send test event" and "Rotate secret" (with a grace period, 1 day chosen) as CSRF-protected POST forms', () => {
    const html = render(h(WebhookDetailPage, props));
    assert.match(
      html,
      /<form method="post" action="\/test\/webhooks\/wh_1\/test"><input type="hidden" name="_csrf" value="tok"/,
    );
    assert.match(html, />Send test event<\/button>/);
    assert.match(html, /<form method="post" action="\/test\/webhooks\/wh_1\/rotate-secret" data-confirm="[^"]+">/);
    assert.match(html, /<label for="grace-seconds">Grace period<\/label>/);
    assert.match(html, /<option value="86400" selected>1 day<\/option>/);
    assert.match(html, />Rotate secret<\/button>/);
    assert.doesNotMatch(html, />Enable<\/button>/);
    const viewer = render(h(WebhookDetailPage, { ...props, canEdit: false }));
    assert.doesNotMatch(viewer, /Send test event|Rotate secret/);
  });

  it('shows a disabled webhook with its time and reason, and "Enable"', () => {
    const disabled = {
      ...props.webhook,
      status: 'disabled',
      disabled_at: '2026-11-27T08:00:00.000Z',
      disabled_reason: 'consecutive_failures',
    };
    const html = render(h(WebhookDetailPage, { ...props, webhook: disabled }));
    assert.match(html, /Status: <strong>Disabled<\/strong>/);
    assert.match(html, /since <time datetime="2026-11-27T08:00:00.000Z">2026-11-27 08:00 UTC<\/time>/);
    assert.match(html, /<code>consecutive_failures<\/code>/);
    assert.match(
      html,
      /<form method="post" action="\/test\/webhooks\/wh_1\/enable"><input type="hidden" name="_csrf" value="tok"\/><button type="submit">Enable<\/button>/,
    );
    const failing = render(h(WebhookDetailPage, { ...props, webhook: { ...props.webhook, failing_since: NOW } }));
    assert.match(failing, /Every delivery attempt since .* has failed\. The webhook is disabled after 5 days/);
  });

  it('shows a test outcome: delivered with status and duration, or the error', () => {
    const tested = {
      delivery_id: 'dlv_1',
      delivered: true,
      status_code: 204,
      duration_ms: 37,
      error: null,
      error_message: null,
    };
    assert.match(render(h(WebhookDetailPage, { ...props, tested })), /Test event delivered: HTTP 204 in 37 ms\./);
    const failed = {
      ...tested,
      delivered: false,
      status_code: null,
      error: 'timeout',
      error_message: 'no answer in 5 s',
    };
    assert.match(
      render(h(WebhookDetailPage, { ...props, tested: failed })),
      /Test event not delivered: timeout \(no answer in 5 s\) after 37 ms\./,
    );
  });

  it('shows a rotated secret once, read-only, with the end of the grace period', () => {
    const rotated = { secret: 'whsec_new', previous_secret_expires_at: '2026-11-29T10:00:00.000Z' };
    const html = render(h(WebhookDetailPage, { ...props, rotated }));
    assert.match(html, /<label for="rotated-secret">New signing secret<\/label>/);
    assert.match(html, /<input id="rotated-secret" type="text" readonly value="whsec_new"/);
    assert.match(html, /Until <time datetime="2026-11-29T10:00:00.000Z">/);
    assert.doesNotMatch(render(h(WebhookDetailPage, props)), /whsec_new/);
  });

  it('filters deliveries by status, event and since, and moves on with "Next" keeping the filters', () => {
    const filter = { ...props.filter!, status: 'failed', event: 'webhook.test', since: '2026-11-27T09:00:00.000Z' };
    const html = render(h(WebhookDetailPage, { ...props, filter, nextCursor: 'abc' }));
    assert.match(html, /<form method="get" action="\/test\/webhooks\/wh_1" class="filters"/);
    assert.match(html, /<label for="filter-status">Status<\/label>/);
    assert.match(html, /<option value="failed" selected>Failed<\/option>/);
    assert.match(html, /<option value="webhook.test" selected>webhook.test<\/option>/);
    assert.match(html, /<input id="filter-since" name="since" type="datetime-local" value="2026-11-27T09:00"/);
    assert.match(html, /No delivery matches these filters\./);
    assert.match(
      html,
      /<a href="\/test\/webhooks\/wh_1\?status=failed&amp;event=webhook.test&amp;since=2026-11-27T09%3A00%3A00.000Z&amp;cursor=abc">Next<\/a>/,
    );
    assert.doesNotMatch(render(h(WebhookDetailPage, props)), />Next</);
  });
});
