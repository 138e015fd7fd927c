import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CHANGE_CHANNEL } from '../../src/db/change-feed';
import { until } from '../support/receiver';
import {
  api,
  getStack,
  newAccount,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
  type TestAccount,
} from '../support/stack';

/**
 * What the service keeps rendered of a share link (src/dashboard/share/share-cache.ts): never served
 * once the link stopped opening, on this API instance or another, and rendered again as soon as what
 * it was rendered from changed (docs/decisions.md, "Share links").
 */

const PASSWORD = 'violet-harbour-lantern';

async function completedAudit(): Promise<{ account: TestAccount; auditId: string }> {
  const account = await newAccount('pro');
  const trigger = await api('POST', '/v1/audits', { key: account.testKey, body: { domain: 'https://kept.example' } });
  assert.equal(trigger.status, 202, trigger.text);
  assert.equal((await waitForAudit(account.testKey, trigger.body.audit_id)).body.status, 'completed');
  return { account, auditId: trigger.body.audit_id };
}

async function newLink(account: TestAccount, auditId: string, body: object = {}): Promise<{ url: string; id: string }> {
  const response = await api('POST', `/v1/audits/${auditId}/shares`, { key: account.testKey, body });
  assert.equal(response.status, 201, response.text);
  return { url: response.body.url, id: response.body.share_id };
}

async function visit(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { redirect: 'manual', headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The page's one inline style, and whether the CSP's style hash is that style's. */
function brandStyle(page: { headers: Headers; text: string }): { style: string; allowed: boolean } {
  const style = /<style>([^<]*)<\/style>/.exec(page.text)?.[1] ?? '';
  const hash = createHash('sha256').update(style).digest('base64');
  return { style, allowed: (page.headers.get('content-security-policy') ?? '').includes(`'sha256-${hash}'`) };
}

describe('share links: what is kept rendered', function () {
  this.timeout(90_000);

  it('serves nothing kept of a revoked link: page and badge are 404 at once, on every API instance', async () => {
    const { account, auditId } = await completedAudit();
    const { url: revoked, id: revokedId } = await newLink(account, auditId);
    const { url: control } = await newLink(account, auditId);
    const other = await startExtraApi();
    try {
      const on = (base: string, url: string) => url.replace(new URL(url).origin, base);
      const instances = [new URL(revoked).origin, other.url];
      const etags: string[] = [];
      for (const base of instances) {
        const first = await visit(on(base, revoked));
        assert.equal(first.status, 200, first.text);
        assert.equal((await visit(on(base, revoked))).text, first.text, 'the same page again');
        const badge = await visit(`${on(base, revoked)}/badge.svg`);
        assert.equal(badge.status, 200);
        etags.push(badge.headers.get('etag')!);
      }

      const response = await api('DELETE', `/v1/shares/${revokedId}`, { key: account.testKey });
      assert.equal(response.status, 204, response.text);
      for (const [i, base] of instances.entries()) {
        const page = await visit(on(base, revoked));
        assert.equal(page.status, 404, `instance ${i}`);
        assert.match(page.text, /This link does not work/);
        assert.equal((await visit(`${on(base, revoked)}/badge.svg`)).status, 404);
        assert.equal((await visit(`${on(base, revoked)}/badge.svg`, { 'If-None-Match': etags[i]! })).status, 404);
        // The other link to the same audit is still served.
        assert.equal((await visit(on(base, control))).status, 200);
        assert.equal((await visit(`${on(base, control)}/badge.svg`)).status, 200);
      }
    } finally {
      await stopExtraApi(other);
    }
  });

  it('shows a changed branding, and a cleared one, from the next request on', async () => {
    const { account, auditId } = await completedAudit();
    const brand = (body: object) => api('PUT', '/v1/branding', { key: account.testKey, body });
    assert.equal((await brand({ display_name: 'Acme Digital', primary_color: '#0b6e4f' })).status, 200);
    const { url } = await newLink(account, auditId);
    const acme = await visit(url);
    assert.ok(acme.text.includes('Acme Digital'));
    assert.match(brandStyle(acme).style, /--brand:#0b6e4f/);
    assert.ok(brandStyle(acme).allowed);
    assert.equal((await visit(url)).text, acme.text, 'unchanged branding, the same page');

    assert.equal((await brand({ display_name: 'Borealis Studio', primary_color: '#7a1f5c' })).status, 200);
    const borealis = await visit(url);
    assert.ok(borealis.text.includes('Borealis Studio'));
    assert.ok(!borealis.text.includes('Acme Digital'));
    assert.match(brandStyle(borealis).style, /--brand:#7a1f5c/);
    assert.ok(brandStyle(borealis).allowed, 'the policy allows the new style');

    assert.equal((await api('DELETE', '/v1/branding', { key: account.testKey })).status, 204);
    const neutral = await visit(url);
    assert.equal(neutral.status, 200);
    assert.ok(!neutral.text.includes('Borealis Studio'));
    assert.ok(neutral.text.includes('Website audit report'));
  });

  it('keeps a protected report behind its password: the kept page goes only to a browser that unlocked it', async () => {
    const { account, auditId } = await completedAudit();
    const { url } = await newLink(account, auditId, { password: PASSWORD });
    const form = await visit(url);
    const csrf = /share_csrf=([A-Za-z0-9_-]{43})/.exec(form.headers.get('set-cookie') ?? '')?.[1];
    assert.ok(csrf);
    const unlocked = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Cookie: `share_csrf=${csrf}`,
        Origin: new URL(url).origin,
      },
      body: new URLSearchParams({ _csrf: csrf, password: PASSWORD }).toString(),
    });
    assert.equal(unlocked.status, 303);
    const access = /^share_access=([^;]+)/.exec(
      unlocked.headers.getSetCookie().find((c) => c.startsWith('share_access=')) ?? '',
    )?.[1];
    assert.ok(access);

    const report = await visit(url, { Cookie: `share_access=${access}` });
    assert.match(report.text, /Top five issues/, 'the report, rendered and kept');
    const altered = access.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    for (const headers of [{}, { Cookie: `share_access=${altered}` }] as Array<Record<string, string>>) {
      const page = await visit(url, headers);
      assert.equal(page.status, 200);
      assert.match(page.text, /This report is protected/);
      assert.ok(!page.text.includes('Top five issues'), 'nothing of the kept report');
    }
  });

  it('opens a kept link without reading the database, until a change from another process names it', async () => {
    const { account, auditId } = await completedAudit();
    const { url, id } = await newLink(account, auditId);
    assert.equal((await visit(url)).status, 200, 'read once, and kept');
    const { db } = await getStack();
    // Revoked behind the service's back, as a process that did not publish would: nothing here hears of it.
    await db('audit_shares').where({ id }).update({ revoked_at: new Date() });
    assert.equal((await visit(url)).status, 200, 'served from what is kept: the row was not read again');
    assert.equal((await visit(`${url}/badge.svg`)).status, 200);

    // The change as another API process publishes it: a NOTIFY on the feed's channel, not from this process.
    await db.raw('SELECT pg_notify(?, ?)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'share', id })]);
    await until(async () => (await visit(url)).status === 404, 5_000, 'the kept link to close');
    assert.equal((await visit(`${url}/badge.svg`)).status, 404);
  });
});
