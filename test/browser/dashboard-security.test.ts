import assert from 'node:assert/strict';
import { LOGIN_THROTTLE } from '../../src/people/login-throttle';
import { LOGIN_REFUSED } from '../../src/dashboard/pages/login';
import { logIn, newPage, signUp } from '../support/browser';
import { getStack } from '../support/stack';

const keyCount = async (workspaceId: string): Promise<number> => {
  const { db } = await getStack();
  const [row] = await db('api_keys').where({ workspace_id: workspaceId }).count('* as n');
  return Number(row.n);
};

describe('dashboard: sessions, CSRF and log-in throttling', function () {
  this.timeout(90_000);

  it('refuses a POST without the CSRF token, with a wrong one, or from another origin', async () => {
    const page = await newPage();
    const { workspaceId } = await signUp(page);
    const { url } = await getStack();
    await page.goto('/test/keys');
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    // Sent from Node: a browser would not let a page forge its Origin header, which is the point.
    const post = async (form: Record<string, string>, origin: string) =>
      fetch(`${url}/test/keys`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: origin, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
        redirect: 'manual',
      });

    assert.equal((await post({}, url)).status, 403);
    // Another last character (never the same one: that would be the token itself).
    const altered = `${csrf.slice(0, -1)}${csrf.endsWith('x') ? 'y' : 'x'}`;
    assert.equal((await post({ _csrf: altered }, url)).status, 403);
    assert.equal((await post({ _csrf: csrf }, 'http://attacker.example')).status, 403);
    assert.equal(await keyCount(workspaceId), 0, 'a refused POST changes nothing');
    assert.equal((await post({ _csrf: csrf }, url)).status, 201, 'the same POST from our page works');
    assert.equal(await keyCount(workspaceId), 1);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, Path=/', async () => {
    const page = await newPage();
    await signUp(page);
    const session = (await page.context().cookies()).find((c) => c.name === 'dash_session');
    assert.ok(session);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.path, '/');
  });

  it('ends the session on log-out: the old cookie leads to the log-in page', async () => {
    const page = await newPage();
    await signUp(page);
    const cookies = await page.context().cookies();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL((u) => u.pathname === '/login');

    const replay = await newPage();
    await replay.context().addCookies(cookies);
    await replay.goto('/keys');
    assert.equal(new URL(replay.url()).pathname, '/login');
  });

  it('throttles log-in failures with one generic message, the right password included, until the window passes', async () => {
    const owner = await newPage();
    const { email, password } = await signUp(owner);
    const { clock } = await getStack();
    const page = await newPage();
    for (let i = 0; i < LOGIN_THROTTLE.perEmail; i++) {
      await logIn(page, email, `wrong-password-${i}`);
      assert.equal(await page.getByRole('alert').textContent(), LOGIN_REFUSED);
    }
    await logIn(page, email, password);
    assert.equal(await page.getByRole('alert').textContent(), LOGIN_REFUSED);
    assert.equal(new URL(page.url()).pathname, '/login');

    clock.advance(LOGIN_THROTTLE.windowMs + 1000);
    try {
      await logIn(page, email, password);
      await page.waitForURL((u) => u.pathname === '/');
    } finally {
      clock.advance(-(LOGIN_THROTTLE.windowMs + 1000));
    }
  });
});
