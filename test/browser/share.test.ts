import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { axe, newPage, screenshot, SCREENSHOT_DIR } from '../support/browser';
import { tinyPng } from '../support/pdf';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

/**
 * A share link in Chromium, as the client of an agency opens it: the branded report with no policy
 * violation and no request to another origin, the password form, revocation, and axe.
 */

const PASSWORD = 'violet-harbour-lantern';

async function brandedAudit(): Promise<{ account: TestAccount; auditId: string }> {
  const account = await newAccount('pro');
  const branding = await api('PUT', '/v1/branding', {
    key: account.testKey,
    body: {
      display_name: 'Acme Digital',
      primary_color: '#0b6e4f',
      contact_line: 'hello@acme.example · +44 20 7946 0000',
      footer_text: 'Confidential — prepared for Example Ltd',
      logo: tinyPng(96, 32).toString('base64'),
    },
  });
  assert.equal(branding.status, 200, branding.text);
  const trigger = await api('POST', '/v1/audits', { key: account.testKey, body: { domain: 'https://shop.example' } });
  assert.equal(trigger.status, 202, trigger.text);
  const done = await waitForAudit(account.testKey, trigger.body.audit_id);
  assert.equal(done.body.status, 'completed', done.text);
  return { account, auditId: trigger.body.audit_id };
}

async function shareUrl(account: TestAccount, auditId: string, body: object = {}): Promise<string> {
  const response = await api('POST', `/v1/audits/${auditId}/shares`, { key: account.testKey, body });
  assert.equal(response.status, 201, response.text);
  return response.body.url;
}

/** What the page did that it should not: policy violations (event and console), and requests off its origin. */
async function watch(page: Page, origin: string) {
  const problems: string[] = [];
  // Installed through the DevTools protocol, so the page's own CSP does not apply to it.
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy|CSP/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`error: ${err.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.origin !== origin) problems.push(`request to ${request.url()}`);
  });
  page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
  return problems;
}

describe('share links in Chromium', function () {
  this.timeout(90_000);

  it('shows the branded report with no CSP violation and nothing from another origin; passes axe', async () => {
    const { account, auditId } = await brandedAudit();
    const url = await shareUrl(account, auditId);
    const page = await newPage();
    const problems = await watch(page, new URL(url).origin);
    const response = await page.goto(url);
    assert.equal(response?.status(), 200);
    await page.waitForLoadState('networkidle');

    const band = page.locator('header.share-band');
    assert.equal(await band.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(11, 110, 79)');
    assert.equal(await band.locator('.share-brand').textContent(), 'Acme Digital');
    const logo = page.getByRole('img', { name: 'Acme Digital logo' });
    assert.ok((await logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)) > 0, 'the logo is shown');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'shop.example');
    assert.ok(await page.getByRole('img', { name: /^Score \d+ out of 100, grade (A\+|[ABCDF])$/ }).isVisible());
    const badge = page.getByRole('img', { name: 'Audit badge: grade and score' });
    assert.ok((await badge.evaluate((img) => (img as HTMLImageElement).naturalWidth)) > 0, 'the badge is shown');
    // Stylesheets applied: the gauge is drawn at its size, not the SVG default.
    assert.ok((await page.locator('svg.gauge').boundingBox())!.width < 250);

    await screenshot(page, 'share-page');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'share-page-top.png') });
    assert.deepEqual(problems, []);
    assert.deepEqual(await axe(page), []);

    // The badge as an image of its own (an SVG document has no body for a full-page shot).
    const badgePage = await newPage();
    await badgePage.setViewportSize({ width: 320, height: 60 });
    await badgePage.goto(`${url}/badge.svg`);
    await badgePage.locator('svg').screenshot({ path: path.join(SCREENSHOT_DIR, 'share-badge.png'), scale: 'device' });

    const revoke = await api('GET', `/v1/audits/${auditId}/shares`, { key: account.testKey });
    const shareId = revoke.body.data[0].share_id;
    assert.equal((await api('DELETE', `/v1/shares/${shareId}`, { key: account.testKey })).status, 204);
    const gone = await page.reload();
    assert.equal(gone?.status(), 404);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This link does not work');
    // Chromium reports the document's own 404 on the console; nothing else may appear.
    assert.deepEqual(
      problems.filter((p) => !/status of 404/.test(p)),
      [],
    );
    await screenshot(page, 'share-revoked');
  });

  it('asks for the password, refuses a wrong one, and shows the report after the right one', async () => {
    const { account, auditId } = await brandedAudit();
    const url = await shareUrl(account, auditId, { password: PASSWORD });
    const page = await newPage();
    const problems = await watch(page, new URL(url).origin);
    await page.goto(url);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This report is protected');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'View report' }).click();
    await page.waitForLoadState('load');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /That password is not right/);
    await screenshot(page, 'share-password');
    assert.deepEqual(await axe(page), []);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'View report' }).click();
    await page.waitForURL(url);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'shop.example');
    const access = (await page.context().cookies()).find((c) => c.name === 'share_access');
    assert.equal(access?.path, new URL(url).pathname);
    assert.equal(access?.httpOnly, true);
    // Console errors of the wrong password's 403 are the browser reporting the status, not a violation.
    assert.deepEqual(
      problems.filter((p) => !/status of 403/.test(p)),
      [],
    );
    const { db } = await getStack();
    assert.equal(
      await db('audit_shares')
        .where({ audit_id: auditId })
        .count('* as n')
        .first()
        .then((r) => Number(r!.n)),
      1,
    );
  });

  it('shows the same 404 page once the link has expired', async () => {
    const { account, auditId } = await brandedAudit();
    const url = await shareUrl(account, auditId, { expires_in_days: 1 });
    const page = await newPage();
    assert.equal((await page.goto(url))?.status(), 200);
    const { clock } = await getStack();
    try {
      clock.advance(24 * 3600_000);
      assert.equal((await page.reload())?.status(), 404);
      assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This link does not work');
      assert.equal(await page.locator('meta[name="robots"]').getAttribute('content'), 'noindex');
      assert.deepEqual(await axe(page), []);
    } finally {
      clock.reset();
    }
  });
});
