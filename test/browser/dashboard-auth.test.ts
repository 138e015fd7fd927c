import assert from 'node:assert/strict';
import { axe, logIn, newPage, screenshot, signUp, uniqueEmail } from '../support/browser';
import { getStack } from '../support/stack';

describe('dashboard: sign-up, log-in, log-out', function () {
  this.timeout(90_000);

  it('signs a new user up, logs out and back in', async () => {
    const page = await newPage();
    const { email, password } = await signUp(page);
    await screenshot(page, 'overview');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Overview');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((u) => u.pathname === '/login');
    await logIn(page, email, password);
    await page.waitForURL((u) => u.pathname === '/');
    assert.match((await page.locator('footer').textContent()) ?? '', new RegExp(email.replace(/[.+]/g, '\\$&')));
  });

  it('has no serious accessibility violation on the sign-up and log-in pages', async () => {
    const page = await newPage();
    await page.goto('/signup');
    await screenshot(page, 'signup');
    assert.deepEqual(await axe(page), []);
    await page.goto('/login');
    assert.deepEqual(await axe(page), []);
  });

  it('refuses a password of ten spaces at sign-up with a message, keeping the e-mail and storing nothing', async () => {
    const page = await newPage();
    const email = uniqueEmail('blank');
    await page.goto('/signup');
    await page.getByLabel('Email').fill(email);
    // Ten spaces pass the field's minlength: the server is what refuses them.
    await page.getByLabel('Password').fill(' '.repeat(10));
    await page.getByRole('button', { name: 'Create account' }).click();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /not only spaces or other blanks/);
    assert.equal(await page.getByLabel('Email').inputValue(), email);
    assert.equal(new URL(page.url()).pathname, '/signup');
    assert.deepEqual(await axe(page), []);
    const { db } = await getStack();
    assert.equal(await db('users').where({ email }).first(), undefined);
  });
});
