import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { setAccountTier } from '../../src/accounts/repository';
import { loadBranding } from '../../src/reports/branding-repository';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { tinyPng } from '../support/pdf';
import { getStack } from '../support/stack';

async function signUpOnTier(page: Page, tier: 'free' | 'pro'): Promise<string> {
  const { workspaceId } = await signUp(page);
  const { db, clock } = await getStack();
  const { account_id } = await db('workspaces').where({ id: workspaceId }).first('account_id');
  if (tier !== 'free') await setAccountTier(db, { accountId: account_id, tier, now: clock.now() });
  return workspaceId;
}

describe('dashboard: report branding', function () {
  this.timeout(90_000);

  it('saves name, colour, footer, contact line and an uploaded logo through the API validation, with a preview', async () => {
    const page = await newPage();
    const workspaceId = await signUpOnTier(page, 'pro');
    await page.goto('/branding');
    await page.getByLabel('Display name').fill('Acme Digital');
    await page.getByLabel('Colour').fill('#e4572e');
    await page.getByLabel('Footer text').fill('Prepared by Acme');
    await page.getByLabel('Contact line').fill('hello@acme.example');
    const logo = Buffer.from(tinyPng(8, 8));
    await page.getByLabel(/^Logo/).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
    await page.getByRole('button', { name: 'Save branding' }).click();
    await page.waitForURL((u) => u.pathname === '/branding' && u.searchParams.get('saved') === '1');

    const { db } = await getStack();
    const stored = (await loadBranding(db, { workspaceId, mode: 'live' })).branding;
    assert.equal(stored?.displayName, 'Acme Digital');
    assert.equal(stored?.primaryColor, '#e4572e');
    assert.equal(stored?.contactLine, 'hello@acme.example');
    assert.ok(stored?.logo?.equals(logo), 'the uploaded bytes are stored');

    const preview = page.getByRole('img', { name: /Preview of the report cover/ });
    const svg = Buffer.from((await preview.getAttribute('src'))!.split(',')[1]!, 'base64').toString('utf8');
    assert.match(svg, /fill="#e4572e"/);
    assert.match(svg, /Acme Digital/);
    assert.match(svg, /data:image\/png;base64,/);
    await screenshot(page, 'branding');
    assert.deepEqual(await axe(page), []);

    // A bad colour is refused in plain words, with a request id, and nothing changes.
    await page.getByLabel('Display name').fill('Other name');
    await page.evaluate(() => {
      (document.getElementById('branding-color') as HTMLInputElement).type = 'text';
    });
    await page.getByLabel('Colour').fill('red');
    await page.getByRole('button', { name: 'Save branding' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /Colour .*Request id: req_/s);
    assert.equal((await loadBranding(db, { workspaceId, mode: 'live' })).branding?.displayName, 'Acme Digital');
  });

  it('free accounts see the upgrade message, and a forged save is refused with 403', async () => {
    const page = await newPage();
    const workspaceId = await signUpOnTier(page, 'free');
    await page.goto('/branding');
    assert.match((await page.locator('main').textContent()) ?? '', /available on the pro plan/);
    assert.equal(await page.getByRole('button', { name: 'Save branding' }).count(), 0);
    const csrf = await page.locator('form.logout input[name="_csrf"]').inputValue();
    const forged = await page.request.post('/branding', {
      form: { _csrf: csrf, display_name: 'Forged', primary_color: '#000000' },
      headers: { Origin: (await getStack()).url },
    });
    assert.equal(forged.status(), 403);
    const { db } = await getStack();
    assert.equal((await loadBranding(db, { workspaceId, mode: 'live' })).branding, null);
  });
});
