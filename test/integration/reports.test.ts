import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SAMPLE_NOTICE } from '../../src/reports/pdf';
import { reportWorkflowId } from '../../workflows/contracts';
import { admin } from '../support/admin';
import { extract, flat, tinyPng } from '../support/pdf';
import { serveSite, type LocalSite } from '../support/sites';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  waitForAudit,
  type ApiResponse,
  type TestAccount,
} from '../support/stack';

const PRODUCT_NAME = /Domain Audit/i;

const ACME = {
  display_name: 'Acme Digital',
  primary_color: '#E4572E',
  footer_text: 'Confidential — prepared by Acme Digital',
  contact_line: 'hello@acme.example · +44 20 7946 0000',
  logo: tinyPng(120, 40).toString('base64'),
};

function assertEnvelope(response: ApiResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body.error.code, code, response.text);
  assert.match(response.body.error.request_id, /^req_/);
  if (message) assert.match(response.body.error.message, message);
}

async function download(url: string): Promise<{ status: number; headers: Headers; bytes: Buffer; json: any }> {
  const response = await fetch(url);
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: unknown = null;
  if (response.headers.get('content-type')?.includes('json')) json = JSON.parse(bytes.toString('utf8'));
  return { status: response.status, headers: response.headers, bytes, json };
}

async function completedTestAudit(account: TestAccount, domain: string): Promise<string> {
  const trigger = await api('POST', '/v1/audits', { key: account.testKey, body: { domain } });
  assert.equal(trigger.status, 202, trigger.text);
  const done = await waitForAudit(account.testKey, trigger.body.audit_id);
  assert.equal(done.body.status, 'completed');
  return trigger.body.audit_id;
}

/** GET /audits/{id}/pdf until it answers 200 (a 202 means still rendering). */
async function reportLink(key: string, auditId: string): Promise<ApiResponse> {
  for (let i = 0; ; i++) {
    const response = await api('GET', `/v1/audits/${auditId}/pdf`, { key });
    if (response.status !== 202 || i > 50) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function renderRuns(auditId: string, revision: number): Promise<number> {
  const { service } = await getStack();
  let runs = 0;
  for await (const _ of service.temporal.client.workflow.list({
    query: `WorkflowId = "${reportWorkflowId(auditId, revision)}"`,
  }))
    runs++;
  return runs;
}

async function revisionOf(workspaceId: string, mode: string): Promise<number> {
  const { db } = await getStack();
  const row = await db('workspace_branding').where({ workspace_id: workspaceId, mode }).first('revision');
  return row ? Number(row.revision) : 0;
}

describe('PDF reports (GET /audits/{id}/pdf, branding, signed links)', function () {
  this.timeout(90_000);
  const sites: LocalSite[] = [];
  after(async () => {
    for (const site of sites) await site.close();
  });

  it('answers tier_required on free for the report and the branding, in both modes, and stores nothing', async () => {
    const free = await newAccount('free');
    const { db } = await getStack();
    const auditId = await completedTestAudit(free, 'https://free-report.example.com');
    for (const key of [free.testKey, free.liveKey]) {
      assertEnvelope(
        await api('GET', `/v1/audits/${auditId}/pdf`, { key }),
        403,
        'tier_required',
        /PDF reports require the pro tier or higher; this account is on free/,
      );
      assertEnvelope(await api('PUT', '/v1/branding', { key, body: ACME }), 403, 'tier_required', /pro tier/);
      assertEnvelope(await api('GET', '/v1/branding', { key }), 403, 'tier_required');
      assertEnvelope(await api('DELETE', '/v1/branding', { key }), 403, 'tier_required');
    }
    assert.equal((await db('workspace_branding').where({ workspace_id: free.workspaceId })).length, 0);
    assert.equal(await db('audit_reports').where({ audit_id: auditId }).first(), undefined);
  });

  it('serves team and enterprise accounts too', async () => {
    for (const tier of ['team', 'enterprise'] as const) {
      const account = await newAccount(tier);
      const auditId = await completedTestAudit(account, `https://${tier}-report.example.com`);
      const link = await reportLink(account.testKey, auditId);
      assert.equal(link.status, 200, link.text);
      assert.equal((await download(link.body.url)).status, 200);
    }
  });

  it('gives a test audit a signed link to the sample report, served without an API key', async () => {
    const account = await newAccount('pro');
    const { clock } = await getStack();
    const auditId = await completedTestAudit(account, 'https://sample-report.example.com');
    const audit = (await api('GET', `/v1/audits/${auditId}`, { key: account.testKey })).body;
    const before = clock.now().getTime();
    const link = await reportLink(account.testKey, auditId);
    const after = clock.now().getTime();
    assert.equal(link.status, 200, link.text);
    assert.deepEqual(Object.keys(link.body).sort(), ['audit_id', 'expires_at', 'url']);
    assert.equal(link.body.audit_id, auditId);
    // 60 minutes from signing, in whole seconds.
    const expiresAt = Date.parse(link.body.expires_at);
    assert.ok(
      expiresAt > before + 3600_000 - 1000 && expiresAt <= after + 3600_000,
      `expires at ${link.body.expires_at}`,
    );
    assert.match(
      link.body.url,
      new RegExp(`/v1/reports/${auditId}\\.pdf\\?expires=\\d+&key=rsk_\\w+&signature=[\\w-]{43}$`),
    );

    const pdf = await download(link.body.url);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.equal(Number(pdf.headers.get('content-length')), pdf.bytes.length);
    assert.match(
      pdf.headers.get('content-disposition') ?? '',
      /^inline; filename="audit-sample-report\.example\.com-\d{4}-\d{2}-\d{2}\.pdf"$/,
    );
    assert.equal(pdf.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(pdf.bytes.subarray(0, 5).toString(), '%PDF-');

    const report = await extract(pdf.bytes);
    const text = flat(report.text);
    assert.ok(text.includes(SAMPLE_NOTICE), 'the test-mode stub says it is a sample');
    assert.ok(text.includes('sample-report.example.com'));
    assert.ok(text.includes(String(audit.score)) && text.includes(`Grade ${audit.grade}`));
    for (const section of [
      'Contents',
      'Summary',
      'Category scores',
      'Top five issues',
      'Findings',
      'Appendix: checks run',
    ])
      assert.ok(text.includes(section), section);
    for (const finding of audit.findings) assert.ok(text.includes(finding.title), finding.title);
    assert.ok(!PRODUCT_NAME.test(text), 'our product name is not in a report');
  });

  it('renders with the workspace branding after PUT /branding, once for many concurrent requests', async () => {
    const account = await newAccount('pro');
    const { db } = await getStack();
    const auditId = await completedTestAudit(account, 'https://branded-report.example.com');
    assert.equal((await reportLink(account.testKey, auditId)).status, 200);
    const neutral = await db('audit_reports').where({ audit_id: auditId }).first();

    const put = await api('PUT', '/v1/branding', { key: account.testKey, body: ACME });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.body.logo, { content_type: 'image/png', byte_size: Buffer.from(ACME.logo, 'base64').length });
    assert.equal(put.body.primary_color, '#e4572e');
    assert.deepEqual((await api('GET', '/v1/branding', { key: account.testKey })).body, put.body);
    // Branding is per mode: test keys never change what live reports look like.
    assert.equal((await api('GET', '/v1/branding', { key: account.liveKey })).body.display_name, null);

    const revision = await revisionOf(account.workspaceId, 'test');
    const links = await Promise.all(Array.from({ length: 6 }, () => reportLink(account.testKey, auditId)));
    for (const link of links) assert.equal(link.status, 200, link.text);
    const rendered = await db('audit_reports').where({ audit_id: auditId }).first();
    assert.equal(Number(rendered.branding_revision), revision);
    assert.notEqual(rendered.storage_key, neutral.storage_key);
    let runs = 0;
    for (const until = Date.now() + 5000; runs === 0 && Date.now() < until;) {
      runs = await renderRuns(auditId, revision);
      if (runs === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(runs, 1, 'six concurrent requests share one render');

    const pdf = await download(links[0]!.body.url);
    const report = await extract(pdf.bytes);
    const text = flat(report.text);
    for (const part of ['Acme Digital', ACME.footer_text, ACME.contact_line, 'branded-report.example.com'])
      assert.ok(text.includes(part), part);
    assert.equal(report.info['Author'], 'Acme Digital');
    assert.ok(!PRODUCT_NAME.test(text) && !PRODUCT_NAME.test(JSON.stringify(report.info)), 'no mention of our product');

    // Asked again: the stored report serves, nothing is rendered.
    assert.equal((await reportLink(account.testKey, auditId)).status, 200);
    assert.equal(
      (await db('audit_reports').where({ audit_id: auditId }).first()).rendered_at.getTime(),
      rendered.rendered_at.getTime(),
    );

    // Cleared: back to the neutral look, rendered again.
    assert.equal((await api('DELETE', '/v1/branding', { key: account.testKey })).status, 204);
    const cleared = await extract((await download((await reportLink(account.testKey, auditId)).body.url)).bytes);
    assert.ok(!flat(cleared.text).includes('Acme Digital'));
  });

  it('refuses invalid branding with the field named, and keeps the previous branding', async () => {
    const account = await newAccount('pro');
    assert.equal(
      (
        await api('PUT', '/v1/branding', {
          key: account.liveKey,
          body: { display_name: 'Before', primary_color: '#112233' },
        })
      ).status,
      200,
    );
    const cases: [unknown, RegExp][] = [
      [{ primary_color: '#112233' }, /display_name is required/],
      [{ display_name: 'Acme', primary_color: 'red' }, /primary_color must match pattern/],
      [{ display_name: 'Acme', primary_color: '#112233', logo: 'not base64!' }, /logo must be base64/],
      [
        { display_name: 'Acme', primary_color: '#112233', logo: Buffer.from('GIF89a....').toString('base64') },
        /logo must be a PNG or JPEG image/,
      ],
      [
        { display_name: 'Acme', primary_color: '#112233', logo: tinyPng(1, 1).subarray(0, 33).toString('base64') },
        /logo could not be read as an image/,
      ],
      [{ display_name: 'Acme\nCorp', primary_color: '#112233' }, /display_name must not contain control characters/],
      [{ display_name: 'Acme', primary_color: '#112233', tagline: 'x' }, /tagline is not allowed/],
    ];
    for (const [body, message] of cases) {
      assertEnvelope(await api('PUT', '/v1/branding', { key: account.liveKey, body }), 400, 'invalid_request', message);
    }
    assertEnvelope(
      await api('PUT', '/v1/branding', {
        key: account.liveKey,
        rawBody: 'display_name=x',
        headers: { 'Content-Type': 'text/plain' },
      }),
      400,
      'invalid_request',
    );
    assertEnvelope(
      await api('PUT', '/v1/branding', {
        key: account.liveKey,
        body: { display_name: 'Acme', primary_color: '#112233', logo: 'A'.repeat(70_000) },
      }),
      413,
      'payload_too_large',
    );
    assert.equal((await api('GET', '/v1/branding', { key: account.liveKey })).body.display_name, 'Before');
  });

  it('answers with the status envelope for an audit not completed, and audit_not_found across workspaces', async () => {
    const account = await newAccount('pro');
    const other = await newAccount('pro');
    const { db } = await getStack();
    const auditId = 'aud_01JRUNNING0000000000000000';
    await db('audits').insert({
      id: auditId,
      workspace_id: account.workspaceId,
      account_id: account.accountId,
      mode: 'live',
      domain: 'https://running.example.com',
      tier: 'pro',
      status: 'running',
      charged: false,
      created_at: new Date(),
      estimated_completion: new Date(Date.now() + 60_000),
    });
    const running = await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.liveKey });
    assert.equal(running.status, 200);
    assert.deepEqual(Object.keys(running.body).sort(), ['audit_id', 'domain', 'estimated_completion', 'status']);
    assert.equal(running.body.status, 'running');
    assertEnvelope(await api('GET', `/v1/audits/${auditId}/pdf`, { key: other.liveKey }), 404, 'audit_not_found');
    assertEnvelope(await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.testKey }), 404, 'audit_not_found');
  });

  it('answers 202 with Retry-After while the render takes longer than the wait, then the link', async () => {
    const account = await newAccount('pro');
    const stack = await getStack();
    const impatient = await startExtraApi({ config: { ...stack.config, reportWaitMs: 0 } });
    const auditId = await completedTestAudit(account, 'https://slow-report.example.com');
    const first = await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.testKey, baseUrl: impatient.url });
    assert.equal(first.status, 202, first.text);
    assert.equal(first.headers.get('retry-after'), '2');
    assert.deepEqual(Object.keys(first.body).sort(), ['audit_id', 'domain', 'estimated_completion', 'status']);
    assert.equal(first.body.status, 'rendering');
    let later = first;
    for (const until = Date.now() + 15_000; later.status === 202 && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      later = await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.testKey, baseUrl: impatient.url });
    }
    assert.equal(later.status, 200, later.text);
    assert.equal((await download(later.body.url)).status, 200);
  });

  describe('signed links', () => {
    let account: TestAccount;
    let auditId: string;
    let otherAuditId: string;
    let url: URL;
    before(async () => {
      account = await newAccount('pro');
      auditId = await completedTestAudit(account, 'https://signed-a.example.com');
      otherAuditId = await completedTestAudit(account, 'https://signed-b.example.com');
      url = new URL((await reportLink(account.testKey, auditId)).body.url);
      assert.equal((await reportLink(account.testKey, otherAuditId)).status, 200);
    });

    const variant = (change: (u: URL) => void): string => {
      const copy = new URL(url);
      change(copy);
      return copy.toString();
    };

    it('refuse tampered, foreign and incomplete links with a 403 envelope', async () => {
      const signature = url.searchParams.get('signature')!;
      const tampered = [
        variant((u) => u.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`)),
        variant((u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
        // The signature of one audit's link on another audit (foreign to it).
        variant((u) => (u.pathname = u.pathname.replace(auditId, otherAuditId))),
        variant((u) => u.searchParams.set('key', 'rsk_NotAKeyOfOurs00')),
        variant((u) => u.searchParams.delete('signature')),
        variant((u) => (u.pathname = u.pathname.replace('.pdf', '.txt'))),
      ];
      for (const link of tampered) {
        const response = await download(link);
        assert.equal(response.status, 403, link);
        assert.equal(response.json.error.code, 'invalid_signature', link);
        assert.match(response.json.error.message, /request a new one with GET \/v1\/audits\/\{audit_id\}\/pdf/);
        assert.match(response.json.error.request_id, /^req_/);
        // Unauthenticated errors carry the free tier's rate-limit headers (README: Tiers and limits).
        assert.equal(response.headers.get('x-ratelimit-limit'), '5', link);
      }
      assert.equal((await download(url.toString())).status, 200, 'the genuine link still works');
    });

    it('expire after 60 minutes (settable clock)', async () => {
      const { clock } = await getStack();
      try {
        clock.advance(59 * 60_000);
        assert.equal((await download(url.toString())).status, 200);
        clock.advance(61 * 1000);
        const expired = await download(url.toString());
        assert.equal(expired.status, 403);
        assert.equal(expired.json.error.code, 'link_expired');
        assert.match(expired.json.error.message, /expired at \d{4}-\d{2}-\d{2}T/);
        // A fresh link works again.
        assert.equal((await download((await reportLink(account.testKey, auditId)).body.url)).status, 200);
      } finally {
        clock.reset();
      }
    });

    it('keep working after a key rotation until they expire; revoking the previous keys ends them at once', async () => {
      const oldKey = url.searchParams.get('key');
      const rotated = await admin('report-key', 'rotate', '--json');
      assert.equal(rotated.code, 0, rotated.stderr);
      const rotation = JSON.parse(rotated.stdout);
      assert.match(rotation.key_id, /^rsk_/);
      assert.ok(rotation.retired.includes(oldKey), rotated.stdout);
      // New links are signed with the new key (the API hears of the rotation within milliseconds).
      let fresh = new URL((await reportLink(account.testKey, auditId)).body.url);
      for (const until = Date.now() + 1000; fresh.searchParams.get('key') !== rotation.key_id && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        fresh = new URL((await reportLink(account.testKey, auditId)).body.url);
      }
      assert.equal(fresh.searchParams.get('key'), rotation.key_id);
      assert.equal((await download(url.toString())).status, 200, 'a link signed before the rotation still works');
      assert.equal((await download(fresh.toString())).status, 200);

      const revoked = JSON.parse((await admin('report-key', 'rotate', '--revoke-previous', '--json')).stdout);
      assert.ok(revoked.revoked.includes(oldKey) && revoked.revoked.includes(rotation.key_id));
      let old = await download(url.toString());
      for (const until = Date.now() + 1000; old.status === 200 && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        old = await download(url.toString());
      }
      assert.equal(old.status, 403);
      assert.equal(old.json.error.code, 'invalid_signature');
      assert.equal((await download(fresh.toString())).status, 403);
      const listed = JSON.parse((await admin('report-key', 'list', '--json')).stdout);
      assert.deepEqual(
        listed.data.map((k: { key_id: string }) => k.key_id),
        [revoked.key_id],
      );
    });
  });

  it('renders a completed live audit ahead of the first request, with the crawled findings', async () => {
    const account = await newAccount('pro');
    const { db } = await getStack();
    const site = await serveSite({
      '/robots.txt': { body: '' },
      '/': {
        body: '<!doctype html><html><head><title>Hi</title></head><body><h1>Widgets</h1><img src="/a.png"></body></html>',
      },
    });
    sites.push(site);
    assert.equal((await api('PUT', '/v1/branding', { key: account.liveKey, body: ACME })).status, 200);
    const trigger = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
    assert.equal(trigger.status, 202, trigger.text);
    const done = await waitForAudit(account.liveKey, trigger.body.audit_id);
    assert.equal(done.body.status, 'completed', done.text);
    let stored = await db('audit_reports').where({ audit_id: trigger.body.audit_id }).first();
    for (const until = Date.now() + 15_000; !stored && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      stored = await db('audit_reports').where({ audit_id: trigger.body.audit_id }).first();
    }
    assert.ok(stored, 'rendered without anyone asking');
    const link = await api('GET', `/v1/audits/${trigger.body.audit_id}/pdf`, { key: account.liveKey });
    assert.equal(link.status, 200);
    const report = await extract((await download(link.body.url)).bytes);
    const text = flat(report.text);
    assert.ok(text.includes(site.origin.replace('http://', '')), 'the audited host');
    assert.ok(!text.includes('SAMPLE'), 'a live report is not marked as a sample');
    assert.ok(text.includes('Acme Digital'));
    for (const finding of done.body.findings.slice(0, 10)) assert.ok(text.includes(finding.title), finding.title);
  });

  it('renders a report page to PNG with poppler (pdftoppm)', async () => {
    const account = await newAccount('pro');
    const auditId = await completedTestAudit(account, 'https://png-report.example.com');
    const pdf = await download((await reportLink(account.testKey, auditId)).body.url);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'report-png-'));
    try {
      await writeFile(path.join(dir, 'report.pdf'), pdf.bytes);
      await promisify(execFile)('pdftoppm', [
        '-png',
        '-r',
        '50',
        '-f',
        '1',
        '-l',
        '1',
        '-singlefile',
        path.join(dir, 'report.pdf'),
        path.join(dir, 'cover'),
      ]);
      const png = await readFile(path.join(dir, 'cover.png'));
      assert.equal(png.subarray(1, 4).toString(), 'PNG');
      // A4 (210 × 297 mm) at 50 dpi: about 413 × 585 pixels.
      const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
      assert.ok(Math.abs(width - 413) <= 1 && Math.abs(height - 585) <= 1, `${width}×${height}`);
      assert.ok(png.length > 5000, 'a page with content, not a blank image');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
