import assert from 'node:assert/strict';
import { axe, logIn, newPage, screenshot, signUp, TEST_PASSWORD, uniqueEmail } from '../support/browser';
import { getStack } from '../support/stack';

describe('dashboard: members, invitations, password change', function () {
  this.timeout(90_000);

  it('invites by e-mail (link shown once and mailed), the invitee joins, the owner changes the role and removes them', async () => {
    const owner = await newPage();
    const { workspaceId } = await signUp(owner);
    const invitee = uniqueEmail('invitee');
    await owner.goto('/members');
    await owner.getByLabel('Email').fill(invitee);
    await owner.getByLabel('Role', { exact: true }).selectOption('developer');
    await owner.getByRole('button', { name: 'Invite' }).click();
    const link = await owner.getByLabel('Invitation link').inputValue();
    await screenshot(owner, 'members-invited');
    assert.deepEqual(await axe(owner), []);

    const { db } = await getStack();
    const mail = await db('mail_outbox').where({ to_address: invitee }).first('body');
    assert.ok(mail?.body.includes(link), 'the invitation mail carries the link');

    const page = await newPage();
    await page.goto(link);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.waitForURL((u) => u.pathname === '/');
    const membership = await db('memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'u.email': invitee, 'm.workspace_id': workspaceId })
      .first('m.role', 'm.user_id');
    assert.equal(membership?.role, 'developer');
    await page.goto(link);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'This invitation no longer works');

    await owner.goto('/members');
    await owner.getByLabel(`Role of ${invitee}`).selectOption('viewer');
    await owner
      .getByRole('row', { name: new RegExp(invitee) })
      .getByRole('button', { name: 'Change role' })
      .click();
    await owner.waitForURL((u) => u.pathname === '/members');
    const changed = await db('memberships')
      .where({ workspace_id: workspaceId, user_id: membership.user_id })
      .first('role');
    assert.equal(changed?.role, 'viewer');

    owner.once('dialog', (dialog) => void dialog.accept());
    await owner.getByRole('button', { name: `Remove ${invitee}` }).click();
    await owner.waitForURL((u) => u.pathname === '/members');
    assert.equal(
      await db('memberships').where({ workspace_id: workspaceId, user_id: membership.user_id }).first(),
      undefined,
    );
  });

  it('changes the password and ends the other sessions', async () => {
    const first = await newPage();
    const { email, password } = await signUp(first);
    const second = await newPage();
    await logIn(second, email, password);
    await second.waitForURL((u) => u.pathname === '/');

    await first.goto('/password');
    await first.getByLabel('Current password').fill(password);
    await first.getByLabel('New password').fill('password2024!');
    await first.getByRole('button', { name: 'Change password' }).click();
    assert.match((await first.getByRole('alert').textContent()) ?? '', /common passwords/);
    await first.getByLabel('Current password').fill(password);
    await first.getByLabel('New password').fill('quiet-meadow-copper-77');
    await first.getByRole('button', { name: 'Change password' }).click();
    assert.match((await first.getByRole('status').last().textContent()) ?? '', /password is changed/);

    await second.goto('/keys');
    assert.equal(new URL(second.url()).pathname, '/login', 'the other session ended');
    await first.goto('/keys');
    assert.equal(new URL(first.url()).pathname, '/keys', 'the session that changed it goes on');
  });
});
