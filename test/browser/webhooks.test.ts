import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { setAccountTier } from '../../src/accounts/repository';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { serveFixtureSite, type FixtureServer } from '../support/fixture-server';
import { startReceiver, until } from '../support/receiver';
import { getStack } from '../support/stack';

/** A signed-up user whose account an operator moved to the pro tier. */
async function proUser(page: Page): Promise<void> {
  const { workspaceId } = await signUp(page);
  const { db, clock } = await getStack();
  const { account_id } = await db('workspaces').where({ id: workspaceId }).first('account_id');
  await setAccountTier(db, { accountId: account_id, tier: 'pro', now: clock.now() });
}

async function addWebhook(page: Page, url: string): Promise<{ secret: string; webhookId: string }> {
  await page.goto('/webhooks');
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = await page.getByLabel('Signing secret').inputValue();
  assert.equal(await page.getByLabel('Signing secret').getAttribute('readonly'), '');
  const href = await page.getByRole('link', { name: `Deliveries to ${url}` }).getAttribute('href');
  return { secret, webhookId: href!.split('/').pop()! };
}

async function runLiveAudit(page: Page, origin: string): Promise<string> {
  await page.goto('/audits');
  await page.getByLabel('Domain').fill(origin);
  await page.getByRole('button', { name: 'Run audit' }).click();
  await page.waitForURL((u) => /^\/audits\/aud_/.test(u.pathname));
  return new URL(page.url()).pathname.split('/').pop()!;
}

describe('dashboard: webhooks', function () {
  this.timeout(120_000);
  let site: FixtureServer;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    site = await serveFixtureSite('clean');
    closers.push(() => site.close());
  });
  after(async () => {
    for (const close of closers) await close();
  });

  it('delivers a live audit to a webhook added in the UI, signed with the secret the UI showed once', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const page = await newPage();
    await proUser(page);
    const { secret } = await addWebhook(page, receiver.url);
    assert.match(secret, /^whsec_/);
    await screenshot(page, 'webhooks');
    assert.deepEqual(await axe(page), []);
    await page.goto('/webhooks');
    assert.equal(await page.getByLabel('Signing secret').count(), 0, 'the secret is shown only once');

    const auditId = await runLiveAudit(page, site.origin);
    const delivered = await until(
      () => receiver.received.find((r) => r.headers['x-service-audit-id'] === auditId),
      60_000,
      'the audit.completed delivery',
    );
    const expected = `sha256=${createHmac('sha256', secret).update(delivered.body).digest('hex')}`;
    assert.equal(delivered.headers['x-service-signature'], expected);
    assert.equal(JSON.parse(delivered.body).audit_id, auditId);

    // Removing asks for confirmation first (the script's dialog), then the webhook is gone.
    await page.goto('/webhooks');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Remove webhook to ${receiver.url}` }).click();
    await page.getByText('No webhooks yet.').waitFor();
    assert.equal(await page.getByRole('link', { name: `Deliveries to ${receiver.url}` }).count(), 0);
    const { db } = await getStack();
    assert.equal(
      (await db('webhooks').where({ url: receiver.url }).whereNull('deleted_at').count('* as n'))[0]!.n,
      '0',
    );
  });

  it('retries a failed delivery from the delivery log: the same delivery id arrives again', async () => {
    const receiver = await startReceiver(() => 500);
    closers.push(receiver.close);
    const page = await newPage();
    await proUser(page);
    const { webhookId } = await addWebhook(page, receiver.url);
    const auditId = await runLiveAudit(page, site.origin);
    const { db } = await getStack();
    const failed: { id: string } = await until(
      () => db('deliveries').where({ webhook_id: webhookId, audit_id: auditId, state: 'failed' }).first('id'),
      60_000,
      'the delivery to fail for good',
    );
    receiver.setResponder(() => 200);
    const before = receiver.received.length;

    await page.goto(`/webhooks/${webhookId}`);
    await screenshot(page, 'webhook-detail');
    assert.deepEqual(await axe(page), []);
    const card = page.locator('section.delivery').filter({ hasText: failed.id });
    assert.match((await card.locator('table').textContent()) ?? '', /HTTP 500/);
    await card.getByRole('button', { name: 'Retry' }).click();
    await page.waitForURL((u) => u.searchParams.get('retried') === failed.id);
    const again = await until(
      () => receiver.received.slice(before).find((r) => r.headers['webhook-id'] === failed.id),
      30_000,
      'the manual redelivery',
    );
    assert.equal(again.headers['x-service-delivery'], failed.id);
  });

  it('free accounts see the upgrade message, and a forged add is refused with 403', async () => {
    const page = await newPage();
    await signUp(page);
    await page.goto('/webhooks');
    assert.match((await page.locator('main').textContent()) ?? '', /Webhooks are available on the pro plan/);
    assert.equal(await page.getByRole('button', { name: 'Add webhook' }).count(), 0);
    // A form the page never offered, posted with the session's own valid CSRF token and Origin.
    const csrf = await page.locator('form.logout input[name="_csrf"]').inputValue();
    const { url } = await getStack();
    const forged = await page.request.post('/webhooks', {
      form: { _csrf: csrf, url: 'http://127.0.0.1:9/hooks', events: 'audit.completed' },
      headers: { Origin: url },
    });
    assert.equal(forged.status(), 403);
    const { db } = await getStack();
    assert.equal((await db('webhooks').where({ url: 'http://127.0.0.1:9/hooks' }).count('* as n'))[0]!.n, '0');
  });
});
