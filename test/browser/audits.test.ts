import assert from 'node:assert/strict';
import { accountUsage } from '../../src/accounts/usage';
import { createApiKey, setAccountTier } from '../../src/accounts/repository';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { serveFixtureSite, type FixtureServer } from '../support/fixture-server';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';

describe('dashboard: audits', function () {
  this.timeout(120_000);
  let site: FixtureServer | undefined;

  after(async () => {
    await site?.close();
  });

  it('runs a test audit from the form, follows it to completion and downloads the exact stored JSON', async () => {
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    const { db, clock } = await getStack();
    const key = await createApiKey(db, { workspaceId, mode: 'test', now: clock.now() });

    await page.goto('/test/audits');
    await page.getByLabel('Domain').fill('https://shop.example.com');
    await page.getByRole('button', { name: 'Run audit' }).click();
    await page.waitForURL((u) => /^\/test\/audits\/aud_[0-9A-Za-z]+$/.test(u.pathname));
    const auditId = new URL(page.url()).pathname.split('/').pop()!;

    // The script swaps in the finished state; without it the page shows a Refresh link instead.
    const download = page.getByRole('link', { name: 'Download JSON' });
    await download.waitFor({ timeout: 30_000 });
    await screenshot(page, 'audit-detail');
    assert.match((await page.locator('#score-heading').textContent()) ?? '', /Score/);
    assert.ok(await page.getByRole('heading', { name: 'Findings' }).isVisible());

    const fromDashboard = await page.request.get((await download.getAttribute('href'))!);
    assert.equal(fromDashboard.status(), 200);
    assert.match(fromDashboard.headers()['content-disposition'] ?? '', /^attachment; filename="aud_/);
    const fromApi = await api('GET', `/v1/audits/${auditId}`, { key: key.key });
    assert.equal(fromApi.status, 200);
    assert.ok(Buffer.from(await fromDashboard.body()).equals(Buffer.from(fromApi.text)), 'same bytes as the API');
    assert.deepEqual(await axe(page), []);

    // The free account sees the upgrade message instead of a PDF link.
    assert.equal(await page.getByRole('link', { name: 'Download PDF report' }).count(), 0);
    assert.match(
      (await page.locator('.notice-upgrade').textContent()) ?? '',
      /PDF reports are available on the pro plan/,
    );

    await page.goto('/test/audits');
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'https://shop.example.com' }) });
    assert.match((await row.textContent()) ?? '', /Completed/);
    await page.goto('/test/audits?status=failed');
    assert.equal(await page.getByRole('link', { name: 'https://shop.example.com' }).count(), 0);
    await page.goto('/test/audits');
    await screenshot(page, 'audits');
    assert.deepEqual(await axe(page), []);
  });

  it('links a completed audit of a pro account to its PDF report through the signed report link', async () => {
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    const { db, clock } = await getStack();
    const { account_id } = await db('workspaces').where({ id: workspaceId }).first('account_id');
    await setAccountTier(db, { accountId: account_id, tier: 'pro', now: clock.now() });
    await page.goto('/test/audits');
    await page.getByLabel('Domain').fill('https://pdf.example.com');
    await page.getByRole('button', { name: 'Run audit' }).click();
    const pdfLink = page.getByRole('link', { name: 'Download PDF report' });
    await pdfLink.waitFor({ timeout: 30_000 });
    const pdf = await page.request.get((await pdfLink.getAttribute('href'))!, { timeout: 60_000 });
    assert.equal(pdf.status(), 200);
    assert.match(new URL(pdf.url()).pathname, /^\/v1\/reports\/aud_[0-9A-Za-z]+\.pdf$/);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.equal(
      Buffer.from(await pdf.body())
        .subarray(0, 5)
        .toString(),
      '%PDF-',
    );
  });

  it('shows a refused run in plain language with a request id, and the form keeps the domain', async () => {
    const page = await newPage();
    await signUp(page);
    await page.goto('/test/audits');
    await page.getByLabel('Domain').fill('ftp://nope');
    await page.getByRole('button', { name: 'Run audit' }).click();
    const alert = page.getByRole('alert');
    assert.match((await alert.textContent()) ?? '', /Request id: req_[0-9A-Za-z]+/);
    assert.equal(await page.getByLabel('Domain').inputValue(), 'ftp://nope');
    // The depth offered stops at the account's own tier.
    assert.deepEqual(await page.locator('#audit-tier option').allTextContents(), ['free']);
  });

  it('charges a live audit run from the dashboard exactly like one run through the API', async () => {
    const fixture = await serveFixtureSite('clean');
    site = fixture;
    const { db, clock } = await getStack();
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    const membership = await db('workspaces').where({ id: workspaceId }).first('account_id');
    const viaApi = await newAccount('free');

    const dashboardIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      await page.goto('/audits');
      await page.getByLabel('Domain').fill(fixture.origin);
      await page.getByRole('button', { name: 'Run audit' }).click();
      await page.waitForURL((u) => /^\/audits\/aud_/.test(u.pathname));
      dashboardIds.push(new URL(page.url()).pathname.split('/').pop()!);
    }
    const apiIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await api<{ audit_id: string }>('POST', '/v1/audits', {
        key: viaApi.liveKey,
        body: { domain: fixture.origin },
      });
      assert.equal(res.status, 202, res.text);
      apiIds.push(res.body.audit_id);
    }
    const charged = async (ids: string[]) =>
      (await db('audits').whereIn('id', ids).orderBy('created_at').select('charged')).map((r) => r.charged);
    assert.deepEqual(await charged(dashboardIds), await charged(apiIds));
    const now = clock.now();
    const dashboardUsage = await accountUsage(db, membership.account_id, now);
    const apiUsage = await accountUsage(db, viaApi.accountId, now);
    assert.equal(dashboardUsage.used, apiUsage.used);
    assert.equal(dashboardUsage.remaining, apiUsage.remaining);
    assert.ok(apiUsage.used >= 1, 'the second audit of a site is charged');
    for (const id of apiIds) await waitForAudit(viaApi.liveKey, id, 60_000);
    for (const id of dashboardIds) await waitForAudit(viaApi.liveKey, id, 60_000);
  });
});
