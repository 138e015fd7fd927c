import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createAccount, createApiKey, setAccountTier } from '../../src/accounts/repository';
import { addMembership, insertUser } from '../../src/people/users';
import { axe, logIn, newPage, screenshot, signUp, TEST_PASSWORD, uniqueEmail } from '../support/browser';
import { api, getStack } from '../support/stack';

/** Creates a key on the keys page and returns the secret shown once. */
async function createKey(page: Page, path: string): Promise<string> {
  await page.goto(path);
  await page.getByRole('button', { name: 'Create key' }).click();
  const field = page.getByLabel('New API key');
  assert.equal(await field.getAttribute('readonly'), '');
  return field.inputValue();
}

/** The API's answer to GET /v1/usage with this key, once the key's change has reached the API's cache. */
async function usageStatusBecomes(key: string, expected: number): Promise<number> {
  let status = 0;
  for (let i = 0; i < 50 && status !== expected; i++) {
    status = (await api('GET', '/v1/usage', { key })).status;
    if (status !== expected) await new Promise((r) => setTimeout(r, 200));
  }
  return status;
}

/** A live key of a workspace the test user does not belong to. */
async function createAccountKey() {
  const { db, clock } = await getStack();
  const other = await createAccount(db, { tier: 'team', now: clock.now() });
  return createApiKey(db, { workspaceId: other.workspace_id, mode: 'live', now: clock.now() });
}

describe('dashboard: API keys', function () {
  this.timeout(90_000);

  it('creates a test key that works on the API, shows it once, and revokes it', async () => {
    const page = await newPage();
    const { email, password } = await signUp(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    await logIn(page, email, password);
    await page.waitForURL((u) => u.pathname === '/');

    const key = await createKey(page, '/test/keys');
    assert.match(key, /^svc_test_/);
    await screenshot(page, 'keys-created');
    assert.equal((await api('GET', '/v1/usage', { key })).status, 200);

    await page.goto('/test/keys');
    assert.equal(await page.getByLabel('New API key').count(), 0, 'the secret is shown only once');
    const row = page.getByRole('row', { name: new RegExp(key.slice(0, 12)) });
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: /Revoke/ }).click();
    await page.waitForURL((u) => u.pathname === '/test/keys');
    assert.match((await row.textContent()) ?? '', /Revoked/);
    assert.equal(await usageStatusBecomes(key, 401), 401);
  });

  it('shows viewers no "Create key" button and refuses their forged POST', async () => {
    const owner = await newPage();
    const { workspaceId } = await signUp(owner);
    const { db, clock, url } = await getStack();
    const viewerEmail = uniqueEmail('viewer');
    const viewer = await insertUser(db, { email: viewerEmail, password: TEST_PASSWORD, now: clock.now() });
    await addMembership(db, { workspaceId, userId: viewer.id, role: 'viewer', now: clock.now() });

    const page = await newPage();
    await logIn(page, viewerEmail, TEST_PASSWORD);
    await page.waitForURL((u) => u.pathname === '/');
    await page.goto('/test/keys');
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const forged = await page.request.post('/test/keys', { form: { _csrf: csrf }, headers: { Origin: url } });
    assert.equal(forged.status(), 403);
    assert.equal((await db('api_keys').where({ workspace_id: workspaceId }).count('* as n'))[0].n, '0');
  });

  it("edits IP allowlists on team accounts with the CLI's parser, and never touches another workspace's key", async () => {
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    const { db, clock, url } = await getStack();
    const { account_id: accountId } = await db('workspaces').where({ id: workspaceId }).first('account_id');
    await setAccountTier(db, { accountId, tier: 'team', now: clock.now() });
    await createKey(page, '/keys');
    const [key] = await db('api_keys').where({ workspace_id: workspaceId });

    await page.goto('/keys');
    const allowlist = page.getByLabel(`Allowed addresses for ${key.prefix}`);
    await allowlist.fill('203.0.113.0/24\n2001:db8::/32');
    await page.getByRole('button', { name: 'Save addresses' }).click();
    await page.waitForURL((u) => u.pathname === '/keys');
    assert.deepEqual((await db('api_keys').where({ id: key.id }).first('allowed_cidrs')).allowed_cidrs, [
      '203.0.113.0/24',
      '2001:db8::/32',
    ]);
    await page.getByLabel(`Allowed addresses for ${key.prefix}`).fill('10.0.0.0/8x');
    await page.getByRole('button', { name: 'Save addresses' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /10\.0\.0\.0\/8x/);

    const other = await createAccountKey();
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const revoke = await page.request.post(`/keys/${other.key_id}/revoke`, {
      form: { _csrf: csrf },
      headers: { Origin: url },
    });
    assert.equal(revoke.status(), 200, 'sent back to its own keys page');
    assert.equal((await db('api_keys').where({ id: other.key_id }).first('revoked_at')).revoked_at, null);
  });

  it('has no serious accessibility violation on the overview, keys and plan pages', async () => {
    const page = await newPage();
    await signUp(page);
    for (const path of ['/', '/keys', '/test/keys', '/plan']) {
      await page.goto(path);
      await screenshot(page, path === '/' ? 'overview' : path.slice(1).replace(/\//g, '-'));
      assert.deepEqual(await axe(page), [], path);
    }
  });

  it('fits a phone screen: no page-wide sideways scrolling on the keys and plan pages', async () => {
    const page = await newPage();
    await signUp(page);
    await createKey(page, '/test/keys');
    await page.setViewportSize({ width: 375, height: 740 });
    for (const path of ['/test/keys', '/plan', '/members']) {
      await page.goto(path);
      await screenshot(page, `phone-${path.split('/').pop()}`);
      const overflow = await page.evaluate(() => {
        const root = (
          globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
        ).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      assert.equal(overflow, 0, path);
    }
  });
});
