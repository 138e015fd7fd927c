import { DEFAULT_PAGE_BUDGETS } from '../../src/page-budgets';
import assert from 'node:assert/strict';
import type { AuditRow } from '../../src/audits/repository';
import {
  completedAuditJson,
  presentAuditStatus,
  presentAuditSummary,
  presentFindings,
} from '../../src/presenters/audits';
import { presentBranding } from '../../src/presenters/branding';
import { presentDelivery } from '../../src/presenters/deliveries';
import { iso } from '../../src/presenters/iso';
import { presentPage } from '../../src/presenters/page';
import { presentCreatedWebhook, presentWebhook } from '../../src/presenters/webhooks';
import type { DeliveryAttemptRow, DeliveryRow } from '../../src/webhooks/repository';

const CREATED = new Date('2026-11-21T10:00:00.000Z');

function audit(overrides: Partial<AuditRow>): AuditRow {
  return {
    id: 'aud_1',
    workspace_id: 'ws_1',
    account_id: 'acct_1',
    mode: 'test',
    domain: 'https://example.com',
    site_key: 'example.com',
    tier: 'pro',
    status: 'queued',
    score: null,
    grade: null,
    charged: false,
    webhook_url: null,
    attempts: 0,
    error_code: null,
    error_message: null,
    result_json: null,
    estimated_completion: null,
    created_at: CREATED,
    started_at: null,
    completed_at: null,
    failed_at: null,
    pages_crawled: null,
    run_generation: 0,
    ...overrides,
  };
}

describe('presenters', () => {
  it('write every timestamp as ISO 8601 UTC with milliseconds, whether the row holds a Date or a string', () => {
    assert.equal(iso(CREATED), '2026-11-21T10:00:00.000Z');
    assert.equal(iso('2026-11-21 11:00:00+01'), '2026-11-21T10:00:00.000Z');
    assert.equal(iso(null), null);
  });

  it('page a list with a cursor after its last row only when there is more', () => {
    const rows = [{ id: 'a' }, { id: 'b' }];
    assert.deepEqual(
      presentPage(
        { rows, hasMore: true },
        (r) => r.id.toUpperCase(),
        (r) => `after-${r.id}`,
      ),
      { data: ['A', 'B'], has_more: true, next_cursor: 'after-b' },
    );
    assert.deepEqual(
      presentPage(
        { rows, hasMore: false },
        (r) => r.id,
        (r) => r.id,
      ),
      { data: ['a', 'b'], has_more: false, next_cursor: null },
    );
  });

  it('show a failed audit with its attempts and error, any other unfinished one without', () => {
    const failed = audit({
      status: 'failed',
      attempts: 3,
      error_code: 'domain_unreachable',
      error_message: 'no answer',
    });
    assert.deepEqual(presentAuditStatus(failed, { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 }), {
      audit_id: 'aud_1',
      domain: 'https://example.com',
      status: 'failed',
      estimated_completion: null,
      attempts: 3,
      error: { code: 'domain_unreachable', message: 'no answer' },
    });
    const queued = audit({ estimated_completion: CREATED });
    assert.deepEqual(
      Object.keys(presentAuditStatus(queued, { pageBudgets: DEFAULT_PAGE_BUDGETS, analysisMsPerPage: 0 })),
      ['audit_id', 'domain', 'status', 'estimated_completion'],
    );
    assert.equal(completedAuditJson(queued), null);
    assert.equal(presentFindings(queued), null);
  });

  it('pass a completed audit through as the stored text, and its findings from it', () => {
    const stored = '{"audit_id":"aud_1",  "findings":[{"id":"f1"}]}';
    const completed = audit({ status: 'completed', result_json: stored, score: 90, completed_at: CREATED });
    assert.equal(completedAuditJson(completed), stored);
    assert.deepEqual(presentFindings(completed), [{ id: 'f1' }]);
    assert.deepEqual(presentAuditSummary(completed), {
      audit_id: 'aud_1',
      domain: 'https://example.com',
      status: 'completed',
      score: 90,
      completed_at: '2026-11-21T10:00:00.000Z',
      created_at: '2026-11-21T10:00:00.000Z',
    });
  });

  it('show a webhook secret only in the answer to its creation', () => {
    const row = {
      id: 'wh_1',
      url: 'https://hooks.example.com',
      events: ['audit.completed' as const],
      created_at: CREATED,
      secret: 'whsec_x',
      status: 'enabled' as const,
      disabled_at: null,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
    };
    assert.equal('secret' in presentWebhook(row), false);
    assert.equal(presentCreatedWebhook(row).secret, 'whsec_x');
  });

  it('show a delivery with only its own attempts and the end of its redelivery window', () => {
    const delivery = {
      id: 'dlv_1',
      event: 'audit.completed',
      audit_id: 'aud_1',
      url: 'https://hooks.example.com',
      state: 'failed',
      created_at: CREATED,
      next_attempt_at: null,
    } as DeliveryRow;
    const attempt = (deliveryId: string, n: number): DeliveryAttemptRow => ({
      delivery_id: deliveryId,
      attempt: n,
      trigger: 'automatic',
      started_at: CREATED,
      duration_ms: 5,
      status_code: 500,
      error_class: 'non_2xx',
      error_message: null,
      response_excerpt: 'oops',
      next_attempt_at: null,
    });
    const shown = presentDelivery(delivery, [attempt('dlv_1', 1), attempt('dlv_2', 1), attempt('dlv_1', 2)], 60_000);
    assert.equal(shown.redeliverable_until, '2026-11-21T10:01:00.000Z');
    assert.deepEqual(
      shown.attempts.map((a) => a.attempt),
      [1, 2],
    );
  });

  it('describe a branding logo rather than return it', () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const shown = presentBranding({
      revision: 2,
      branding: { displayName: 'Acme', primaryColor: '#e4572e', logo: png },
      updatedAt: CREATED,
    });
    assert.deepEqual(shown.logo, { content_type: 'image/png', byte_size: png.length });
    assert.deepEqual(presentBranding({ revision: 0, branding: null, updatedAt: null }), {
      display_name: null,
      primary_color: null,
      footer_text: null,
      contact_line: null,
      logo: null,
      updated_at: null,
    });
  });
});
