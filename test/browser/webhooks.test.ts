import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { setAccountTier } from '../../src/accounts/repository';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { serveFixtureSite, type FixtureServer } from '../support/fixture-server';
import { startReceiver, until, type Received } from '../support/receiver';
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

  it('sends a test event and rotates the secret from the webhook page: outcome shown, new secret once, both signatures during the grace', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const page = await newPage();
    await proUser(page);
    const { secret, webhookId } = await addWebhook(page, receiver.url);
    await page.goto(`/webhooks/${webhookId}`);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL((u) => /^dlv_/.test(u.searchParams.get('tested') ?? ''));
    const outcome = (await page.getByRole('status').filter({ hasText: 'Test event' }).textContent()) ?? '';
    assert.match(outcome, /Test event delivered: HTTP 200 in \d+ ms\./);
    const first = await until(() => receiver.received.find(isTestEvent), 10_000, 'the test event');
    assert.equal(first.headers['x-service-signature'], sign(secret, first.body));
    assert.equal(JSON.parse(first.body).webhook_id, webhookId);
    await screenshot(page, 'webhook-test-event');
    assert.deepEqual(await axe(page), []);

    // One day of grace (the choice offered first): the previous secret signs beside the new one.
    assert.equal(await page.getByLabel('Grace period').inputValue(), '86400');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const field = page.getByLabel('New signing secret');
    const rotated = await field.inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    assert.equal(await field.getAttribute('readonly'), '');
    assert.match((await page.locator('main').textContent()) ?? '', /Until .* every delivery is signed with both/);
    await screenshot(page, 'webhook-rotated');
    assert.deepEqual(await axe(page), []);

    await page.goto(`/webhooks/${webhookId}`);
    assert.equal(await page.getByLabel('New signing secret').count(), 0, 'the new secret is shown only once');
    const before = receiver.received.length;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL((u) => u.searchParams.has('tested'));
    const second = await until(
      () => receiver.received.slice(before).find(isTestEvent),
      10_000,
      'the second test event',
    );
    assert.equal(second.headers['x-service-signature'], `${sign(rotated, second.body)}, ${sign(secret, second.body)}`);

    // A failing endpoint: the outcome says so, with the status code.
    receiver.setResponder(() => 503);
    const previous = new URL(page.url()).searchParams.get('tested');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL((u) => u.searchParams.get('tested') !== previous);
    await page.getByText(/Test event not delivered: HTTP 503 after \d+ ms\./).waitFor();
  });

  it('shows a disabled webhook with its reason and enables it again; filters deliveries and pages them with Next', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const page = await newPage();
    await proUser(page);
    const { webhookId } = await addWebhook(page, receiver.url);
    const { db, clock } = await getStack();
    const disabledAt = new Date(clock.now().getTime() - 3600_000);
    await db('webhooks')
      .where({ id: webhookId })
      .update({ status: 'disabled', disabled_at: disabledAt, disabled_reason: 'consecutive_failures' });

    await page.goto(`/webhooks/${webhookId}`);
    const state = (await page.locator('main').textContent()) ?? '';
    assert.match(state, /Status: Disabled/);
    assert.match(state, new RegExp(`Disabled since ${disabledAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`));
    assert.match(state, /consecutive_failures/);
    await screenshot(page, 'webhook-disabled');
    assert.deepEqual(await axe(page), []);

    await seedDeliveries(webhookId, 60);
    await page.reload();
    // 60 deliveries, 50 a page: Next moves on and keeps the filter.
    assert.equal(await page.locator('section.delivery').count(), 50);
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((u) => u.searchParams.get('status') === 'failed');
    assert.equal(await page.locator('section.delivery').count(), 30);
    assert.equal(await page.getByRole('link', { name: 'Next' }).count(), 0);
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await page.getByLabel('Event').selectOption('webhook.test');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL((u) => u.searchParams.get('event') === 'webhook.test');
    const firstPage = await page.locator('section.delivery h3').allTextContents();
    assert.equal(firstPage.length, 50);
    await page.getByRole('link', { name: 'Next' }).click();
    await page.waitForURL((u) => u.searchParams.has('cursor') && u.searchParams.get('event') === 'webhook.test');
    assert.equal(await page.locator('section.delivery').count(), 10);
    await screenshot(page, 'webhook-deliveries-next');
    assert.deepEqual(await axe(page), []);
    const future = new Date(clock.now().getTime() + 86_400_000).toISOString().slice(0, 16);
    await page.getByLabel('Since (UTC)').fill(future);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No delivery matches these filters.').waitFor();

    await page.goto(`/webhooks/${webhookId}`);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.waitForURL((u) => u.searchParams.get('enabled') === '1');
    await page.getByText('Webhook enabled: deliveries resume with the next event.').waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', /Status: Enabled/);
    assert.equal(await page.getByRole('button', { name: 'Enable' }).count(), 0);
    const row = await db('webhooks').where({ id: webhookId }).first('status', 'disabled_at');
    assert.deepEqual(row, { status: 'enabled', disabled_at: null });
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

function isTestEvent(received: Received): boolean {
  return received.headers['x-service-event'] === 'webhook.test' || /"type":"webhook.test"/.test(received.body);
}

function sign(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Logged deliveries, a minute apart (newest first in the log): every other one of the first 60 failed. */
async function seedDeliveries(webhookId: string, count: number): Promise<void> {
  const { db, clock } = await getStack();
  const webhook = await db('webhooks').where({ id: webhookId }).first();
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `dlv_seed${webhookId.slice(3, 13)}${String(i).padStart(4, '0')}`,
    webhook_id: webhookId,
    workspace_id: webhook.workspace_id,
    mode: webhook.mode,
    audit_id: null,
    event: 'webhook.test',
    url: webhook.url,
    payload: '{}',
    state: i % 2 === 0 ? 'failed' : 'delivered',
    attempts: 1,
    created_at: new Date(clock.now().getTime() - (i + 1) * 60_000),
  }));
  await db('deliveries').insert(rows);
}
