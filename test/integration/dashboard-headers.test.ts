import assert from 'node:assert/strict';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/security-headers';
import { getStack, startExtraApi } from '../support/stack';

describe('dashboard: security headers and cookies', function () {
  this.timeout(60_000);

  it('serves pages with the strict CSP and the other security headers, and no HSTS or Secure on plain http', async () => {
    const { url } = await getStack();
    const page = await fetch(`${url}/signup`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self';/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('referrer-policy'), 'same-origin');
    assert.equal(page.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.ok(page.headers.get('permissions-policy'));
    assert.equal(page.headers.get('strict-transport-security'), null);
    assert.doesNotMatch(page.headers.get('set-cookie') ?? '', /Secure/);

    const html = await page.text();
    const stylesheet = /href="(\/assets\/dashboard\.[0-9a-f]{12}\.css)"/.exec(html)?.[1];
    assert.ok(stylesheet, 'the stylesheet URL carries a content hash');
    const asset = await fetch(`${url}${stylesheet}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('cache-control') ?? '', /max-age=31536000, immutable/);
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
  });

  it('behind an https public URL: HSTS, Secure cookies, and POSTs only from that origin', async () => {
    const { config } = await getStack();
    const api = await startExtraApi({ config: { ...config, publicBaseUrl: 'https://dashboard.example' } });
    const page = await fetch(`${api.url}/signup`);
    assert.match(page.headers.get('strict-transport-security') ?? '', /max-age=\d+/);
    const cookie = page.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^dash_csrf=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const token = /dash_csrf=([\w-]+)/.exec(cookie)![1];
    const form = new URLSearchParams({ _csrf: token, email: 'someone@example.com', password: 'x' }).toString();
    const post = (origin: string) =>
      fetch(`${api.url}/login`, {
        method: 'POST',
        headers: { Origin: origin, Cookie: `dash_csrf=${token}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: form,
        redirect: 'manual',
      });
    assert.equal((await post(api.url)).status, 403, 'the internal address is not the public origin');
    assert.equal((await post('https://dashboard.example')).status, 401, 'the public origin gets to the password check');
  });
});
