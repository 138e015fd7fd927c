import assert from 'node:assert/strict';
import { axe, newPage, screenshot, signUp } from '../support/browser';
import { getStack } from '../support/stack';

describe('dashboard: notification channels', function () {
  this.timeout(120_000);

  it('adds a Slack channel from the navigation on a free plan, shows a refusal in the form, and removes it', async () => {
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications' }).click();
    await page.waitForURL((u) => u.pathname === '/notification-channels');
    await page.getByText('No notification channels yet.').waitFor();
    assert.deepEqual(await axe(page), []);

    const target = page.getByLabel('E-mail address or incoming-webhook URL');
    await page.getByLabel('Type', { exact: true }).selectOption('slack');
    await target.fill('https://10.0.0.1/hook');
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page
      .getByRole('alert')
      .getByText(/^field target cannot receive webhooks/)
      .waitFor();
    assert.equal(await target.inputValue(), 'https://10.0.0.1/hook', 'the form keeps what was typed');
    assert.equal(await page.getByLabel('Type', { exact: true }).inputValue(), 'slack');
    assert.deepEqual(await axe(page), []);
    const { db } = await getStack();
    assert.equal((await db('notification_channels').where({ workspace_id: workspaceId })).length, 0);

    await target.fill('http://127.0.0.1:9/hook');
    await page.getByLabel(/webhook\.failing:/).uncheck();
    await page.getByRole('button', { name: 'Add channel' }).click();
    await page.getByText('Channel added.').waitFor();
    await page.getByRole('cell', { name: 'site.regressed, audit.failed, webhook.disabled' }).waitFor();
    await screenshot(page, 'notification-channels');
    assert.deepEqual(await axe(page), []);
    const [row] = await db('notification_channels').where({ workspace_id: workspaceId });
    assert.deepEqual(
      [row.mode, row.type, row.target, row.events],
      ['live', 'slack', 'http://127.0.0.1:9/hook', ['site.regressed', 'audit.failed', 'webhook.disabled']],
    );

    // Removing asks for confirmation first (the script's dialog), then the channel is gone.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove channel to http://127.0.0.1:9/hook' }).click();
    await page.getByText('No notification channels yet.').waitFor();
    assert.ok((await db('notification_channels').where({ id: row.id }).first()).deleted_at);
  });
});
