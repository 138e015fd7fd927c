import assert from 'node:assert/strict';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { groupFindings } from '../../src/audits/finding-groups';
import { syntheticAudit } from '../../src/audits/synthetic';
import { AuditDetailPage } from '../../src/dashboard/pages/audit-detail';
import { AuditsPage } from '../../src/dashboard/pages/audits';
import { BrandingPage } from '../../src/dashboard/pages/branding';
import { WebhookDetailPage } from '../../src/dashboard/pages/webhook-detail';
import { WebhooksPage } from '../../src/dashboard/pages/webhooks';
import { CATEGORIES, SEVERITIES } from '../../src/schemas/audit';
import { syntheticInput } from '../support/synthetic-input';

const audit = syntheticAudit(syntheticInput('https://shop.example.com'));

describe('dashboard audit, webhook and branding pages (rendered to HTML)', () => {
  it('groups findings by category in catalog order, then by severity from critical down', () => {
    const groups = groupFindings(audit.findings);
    assert.ok(groups.length > 1);
    const order = groups.map((g) => CATEGORIES.indexOf(g.category));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    for (const group of groups) {
      const ranks = group.bySeverity.map((s) => SEVERITIES.indexOf(s.severity));
      assert.deepEqual(
        ranks,
        [...ranks].sort((a, b) => a - b),
      );
      for (const { severity, findings } of group.bySeverity)
        assert.ok(findings.every((f) => f.severity === severity && f.category === group.category));
    }
    assert.equal(groups.flatMap((g) => g.bySeverity.flatMap((s) => s.findings)).length, audit.findings.length);
  });

  it('audits list: run form with Domain, the tiers given and Run audit; filters kept in the paging link', () => {
    const html = render(
      h(AuditsPage, {
        basePath: '/test',
        csrfToken: 'tok',
        canRun: true,
        tiers: ['free', 'pro'],
        audits: [
          {
            audit_id: 'aud_1',
            domain: 'https://a.example',
            status: 'completed',
            score: 91,
            completed_at: '2026-11-21T10:15:00.480Z',
            created_at: '2026-11-21T10:15:00.000Z',
          },
        ],
        filters: { status: 'completed' },
        nextCursor: 'abc',
        problem: { message: 'Monthly quota used up', requestId: 'req_9' },
      }),
    );
    assert.match(html, /<label for="audit-domain">Domain<\/label>/);
    assert.match(html, /<button type="submit">Run audit<\/button>/);
    assert.match(html, /<option value="pro" selected>pro<\/option>/);
    assert.doesNotMatch(html, /value="team"/);
    assert.match(html, /href="\/test\/audits\/aud_1"/);
    assert.match(html, /href="\/test\/audits\?status=completed&amp;cursor=abc"/);
    assert.match(html, /Monthly quota used up[\s\S]*req_9/);
    assert.match(html, /name="_csrf" value="tok"/);
    assert.doesNotMatch(render(h(AuditsPage, { ...baseList, canRun: false })), /Run audit/);
  });

  it('audit detail when completed: score, categories, grouped findings, analyzer table, Download JSON; PDF by tier', () => {
    const status = { audit_id: audit.audit_id, domain: audit.domain, status: 'completed', estimated_completion: null };
    const pro = render(
      h(AuditDetailPage, { basePath: '', plansHref: '/plan', status, result: audit, pdfAllowed: true }),
    );
    assert.match(pro, new RegExp(`<strong>${audit.score}</strong> out of 100, grade <strong>${audit.grade}</strong>`));
    assert.match(pro, new RegExp(`href="/audits/${audit.audit_id}/json" download>Download JSON</a>`));
    assert.match(pro, /Download PDF report/);
    assert.doesNotMatch(pro, /data-poll/);
    assert.doesNotMatch(pro, /See the plans/);
    for (const analyzer of audit.analyzers) assert.ok(pro.includes(`<code>${analyzer.code}</code>`));
    const first = audit.findings[0]!;
    assert.ok(pro.includes(escapeHtml(first.title)));
    const free = render(
      h(AuditDetailPage, { basePath: '', plansHref: '/plan', status, result: audit, pdfAllowed: false }),
    );
    assert.doesNotMatch(free, /Download PDF report/);
    assert.match(free, /PDF reports are available on the pro plan/);
  });

  it('audit detail while running shows progress with a refresh link; failed shows error and attempts', () => {
    const running = render(
      h(AuditDetailPage, {
        basePath: '/test',
        plansHref: '/plan',
        status: { audit_id: 'aud_2', domain: 'https://b.example', status: 'running', estimated_completion: null },
        result: null,

        pdfAllowed: true,
      }),
    );
    assert.match(running, /Crawling the site and running the checks/);
    assert.match(running, /id="audit-state" data-poll="\/test\/audits\/aud_2"/);
    assert.doesNotMatch(running, /crawled so far/, 'no figure before the crawl reports one');
    const crawling = render(
      h(AuditDetailPage, {
        basePath: '/test',
        plansHref: '/plan',
        status: {
          audit_id: 'aud_2',
          domain: 'https://b.example',
          status: 'running',
          estimated_completion: null,
          pages_crawled: 37,
        },
        result: null,
        pdfAllowed: true,
      }),
    );
    assert.match(crawling, /<strong data-pages-crawled="37">37 pages<\/strong> crawled so far\./);
    assert.match(running, /<a href="\/test\/audits\/aud_2">Refresh<\/a>/);
    assert.doesNotMatch(running, /Download JSON/);
    const failed = render(
      h(AuditDetailPage, {
        basePath: '',
        plansHref: '/plan',
        status: {
          audit_id: 'aud_3',
          domain: 'https://c.example',
          status: 'failed',
          estimated_completion: null,
          attempts: 3,
          error: { code: 'site_unreachable', message: 'connection refused' },
        },
        result: null,
        pdfAllowed: true,
      }),
    );
    assert.match(failed, /failed after 3 attempt\(s\): connection refused/);
  });

  it('webhooks: Endpoint URL, event boxes, Add webhook; the secret once in a read-only Signing secret field', () => {
    const props = {
      basePath: '/test',
      plansHref: '/plan',
      csrfToken: 'tok',
      allowed: true,
      canEdit: true,
      events: ['audit.completed', 'audit.failed'],
      webhooks: [{ webhook_id: 'wh_1', url: 'https://h.example/x', events: ['audit.completed'], created_at: NOW }],
    };
    const html = render(h(WebhooksPage, { ...props, created: { ...props.webhooks[0]!, secret: 'whsec_abc' } }));
    assert.match(html, /<label for="webhook-url">Endpoint URL<\/label>/);
    assert.match(html, /<button type="submit">Add webhook<\/button>/);
    assert.match(html, /<label for="webhook-secret">Signing secret<\/label>/);
    assert.match(html, /<input id="webhook-secret" type="text" readonly value="whsec_abc"/);
    assert.match(html, /action="\/test\/webhooks\/wh_1\/remove"/);
    assert.match(html, /<form method="post" action="\/test\/webhooks\/wh_1\/remove" data-confirm=/);
    assert.doesNotMatch(render(h(WebhooksPage, { ...props })), /whsec_abc/);
    const free = render(h(WebhooksPage, { ...props, allowed: false }));
    assert.match(free, /Webhooks are available on the pro plan/);
    assert.doesNotMatch(free, /Add webhook/);
  });

  it('webhook detail: every attempt; Retry only for failed deliveries inside the window, a note outside', () => {
    const attempt = {
      attempt: 1,
      trigger: 'automatic',
      started_at: NOW,
      duration_ms: 12,
      status_code: 500,
      error_class: null,
      error_message: null,
      response_excerpt: 'boom',
      next_attempt_at: null,
    };
    const delivery = (id: string, state: string, until: string) => ({
      delivery_id: id,
      event: 'audit.completed',
      audit_id: 'aud_1',
      state,
      created_at: NOW,
      next_attempt_at: null,
      redeliverable_until: until,
      attempts: [attempt],
    });
    const html = render(
      h(WebhookDetailPage, {
        basePath: '',
        csrfToken: 'tok',
        canEdit: true,
        now: new Date('2026-11-22T00:00:00.000Z'),
        webhook: { webhook_id: 'wh_1', url: 'https://h.example/x', events: ['audit.completed'], created_at: NOW },
        deliveries: [
          delivery('dlv_in', 'failed', '2026-11-28T00:00:00.000Z'),
          delivery('dlv_out', 'failed', '2026-11-21T12:00:00.000Z'),
          delivery('dlv_ok', 'delivered', '2026-11-28T00:00:00.000Z'),
        ],
        nextCursor: null,
      }),
    );
    assert.equal(html.match(/>Retry<\/button>/g)?.length, 1);
    assert.match(html, /action="\/webhooks\/wh_1\/deliveries\/dlv_in\/retry"/);
    assert.match(html, /Retry was possible until 2026-11-21 12:00 UTC/);
    assert.match(html, /HTTP 500/);
    assert.match(html, /<time datetime="2026-11-21T10:15:00.000Z">2026-11-21 10:15:00 UTC<\/time>/);
    assert.match(html, /<code>boom<\/code>/);
  });

  it('branding: the form fields and a cover preview that carries the colour and escapes the name', () => {
    const html = render(
      h(BrandingPage, {
        basePath: '',
        plansHref: '/plan',
        csrfToken: 'tok',
        allowed: true,
        canEdit: true,
        branding: { displayName: 'Acme <Digital>', primaryColor: '#e4572e', footerText: 'Prepared by Acme' },
      }),
    );
    for (const label of ['Display name', 'Colour', 'Footer text', 'Contact line'])
      assert.match(html, new RegExp(`>${label}</label>`));
    assert.match(html, /type="file"/);
    const svg = Buffer.from(/src="data:image\/svg\+xml;base64,([^"]+)"/.exec(html)![1]!, 'base64').toString('utf8');
    assert.match(svg, /fill="#e4572e"/);
    assert.match(svg, /Acme &#60;Digital&#62;/);
    assert.doesNotMatch(svg, /<Digital>/);
  });
});

const NOW = '2026-11-21T10:15:00.000Z';
const baseList = {
  basePath: '',
  csrfToken: 'tok',
  canRun: true,
  tiers: ['free'],
  audits: [],
  filters: {},
  nextCursor: null,
};

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
