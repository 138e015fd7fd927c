import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SHARE_RULES } from '../../src/shares/service';
import { tinyPng } from '../support/pdf';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';

/**
 * The public side of share links (README "Share links"): the page and badge a visitor fetches without
 * a key, its headers and policy, expiry, and the password form with its throttle under real
 * concurrent requests.
 */

const ACME = {
  display_name: 'Acme Digital',
  primary_color: '#0b6e4f',
  footer_text: 'Confidential — prepared for Example Ltd',
  contact_line: 'hello@acme.example',
  logo: tinyPng(40, 16).toString('base64'),
};
const PASSWORD = 'violet-harbour-lantern';

async function sharedAudit(tier: 'pro' | 'enterprise' = 'pro') {
  const account = await newAccount(tier);
  const trigger = await api('POST', '/v1/audits', { key: account.testKey, body: { domain: 'https://bücher.example' } });
  assert.equal(trigger.status, 202, trigger.text);
  const done = await waitForAudit(account.testKey, trigger.body.audit_id);
  assert.equal(done.body.status, 'completed');
  return { account, auditId: trigger.body.audit_id as string, audit: done.body };
}

async function share(account: TestAccount, auditId: string, body: object = {}): Promise<string> {
  const response = await api('POST', `/v1/audits/${auditId}/shares`, { key: account.testKey, body });
  assert.equal(response.status, 201, response.text);
  return response.body.url;
}

async function visit(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Every URL-valued attribute of the page: each must stay on this origin (a path) or be inline data. */
function urlAttributes(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href|action|srcset|poster|data|formaction)="([^"]*)"/g)].map((m) => m[1]!);
}

describe('share links: the public page and badge', function () {
  this.timeout(90_000);

  it('serves the report without a key, in the branding, with noindex, a strict CSP and nothing from another origin', async () => {
    const { account, auditId, audit } = await sharedAudit();
    assert.equal((await api('PUT', '/v1/branding', { key: account.testKey, body: ACME })).status, 200);
    const url = await share(account, auditId);
    const page = await visit(url);
    assert.equal(page.status, 200, page.text);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('x-robots-tag'), 'noindex');
    assert.match(page.text, /<meta name="robots" content="noindex"\/?>/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');

    const csp = page.headers.get('content-security-policy') ?? '';
    const directives = Object.fromEntries(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v]),
    );
    assert.deepEqual(directives['default-src'], ["'none'"]);
    assert.equal(directives['script-src'], undefined, 'no script may run at all');
    assert.deepEqual(directives['img-src'], ["'self'", 'data:']);
    assert.deepEqual(directives['form-action'], ["'self'"]);
    assert.deepEqual(directives['frame-ancestors'], ["'none'"]);
    assert.ok(!csp.includes('unsafe'), csp);
    // The one inline style is the one the policy's hash names.
    const styles = [...page.text.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]!);
    assert.equal(styles.length, 1);
    const hash = createHash('sha256').update(styles[0]!).digest('base64');
    assert.deepEqual(directives['style-src'], ["'self'", `'sha256-${hash}'`]);
    assert.match(styles[0]!, /--brand:#0b6e4f/);

    assert.ok(!/<script/i.test(page.text), 'no script element');
    assert.ok(!/\sstyle="/.test(page.text), 'no style attribute');
    assert.ok(!/\son[a-z]+="/i.test(page.text), 'no event handler attribute');
    const attributes = urlAttributes(page.text);
    assert.ok(attributes.length > 0);
    for (const value of attributes)
      assert.ok(
        /^\/(?!\/)/.test(value) || value.startsWith('data:image/png;base64,') || value === 'data:,',
        `off-origin URL: ${value}`,
      );
    for (const stylesheet of attributes.filter((v) => v.startsWith('/assets/'))) {
      const asset = await visit(new URL(stylesheet, url).href);
      assert.equal(asset.status, 200, stylesheet);
      assert.ok(!/url\(|@import/.test(asset.text), `${stylesheet} loads nothing further`);
    }

    // The report: the agency, the site in Unicode, the score, grade and findings as the PDF has them.
    for (const text of [
      'Acme Digital',
      'hello@acme.example',
      'Confidential — prepared for Example Ltd',
      'bücher.example',
      `Score ${audit.score} out of 100, grade ${audit.grade}`,
      'Category scores',
      'Issues by severity',
      'Top five issues',
      'SAMPLE REPORT',
    ])
      assert.ok(page.text.includes(text), `page shows ${text}`);
    assert.match(page.text, /alt="Acme Digital logo"/);
    for (const finding of audit.findings.slice(0, 5)) assert.ok(page.text.includes(finding.id));
    assert.ok(!page.text.includes('/audits/'), 'no link into the dashboard');
  });

  it('serves the badge: well-formed SVG with an accessible title, grade and score, cacheable briefly with an ETag', async () => {
    const { account, auditId, audit } = await sharedAudit();
    const url = await share(account, auditId);
    const badge = await visit(`${url}/badge.svg`);
    assert.equal(badge.status, 200, badge.text);
    assert.equal(badge.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.equal(badge.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(badge.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.equal(badge.headers.get('x-robots-tag'), 'noindex');
    assert.equal(XMLValidator.validate(badge.text), true);
    const svg = new XMLParser({ ignoreAttributes: false }).parse(badge.text).svg;
    assert.equal(svg['@_role'], 'img');
    assert.equal(svg['@_aria-labelledby'], svg.title['@_id']);
    assert.equal(svg.title['#text'], `Audit of bücher.example: grade ${audit.grade}, score ${audit.score} out of 100`);
    assert.ok(badge.text.includes(`${audit.grade} · ${audit.score}/100`));
    assert.ok(!/<script|href=|xlink/i.test(badge.text));

    const etag = badge.headers.get('etag')!;
    assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
    const again = await visit(`${url}/badge.svg`, { headers: { 'If-None-Match': etag } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
  });

  it('answers 404, page and badge, once a link has expired (by the service clock)', async () => {
    const { account, auditId } = await sharedAudit();
    const url = await share(account, auditId, { expires_in_days: 1 });
    const { clock } = await getStack();
    try {
      clock.advance(24 * 3600_000 - 60_000);
      assert.equal((await visit(url)).status, 200, 'open until its last minute');
      assert.equal((await visit(`${url}/badge.svg`)).status, 200);
      clock.advance(60_000);
      const page = await visit(url);
      assert.equal(page.status, 404);
      assert.match(page.text, /This link does not work/);
      assert.equal((await visit(`${url}/badge.svg`)).status, 404);
      const listed = await api('GET', `/v1/audits/${auditId}/shares`, { key: account.testKey });
      assert.equal(listed.body.data[0].status, 'expired');
    } finally {
      clock.reset();
    }
    for (const bad of ['', 'x', 'A'.repeat(42), `${'A'.repeat(43)}%00`, 'A'.repeat(44)])
      assert.equal((await visit(`${new URL(url).origin}/share/${bad}`)).status, 404, `token ${bad}`);
  });
});

describe('share links: the password form', function () {
  this.timeout(90_000);

  /** The form's page, and what a browser holds after it: the double-submit cookie and the field. */
  async function openForm(url: string) {
    const page = await visit(url);
    assert.equal(page.status, 200, page.text);
    const setCookie = page.headers.get('set-cookie') ?? '';
    const cookie = /share_csrf=([A-Za-z0-9_-]{43})/.exec(setCookie)?.[1];
    assert.ok(cookie, setCookie);
    assert.match(setCookie, new RegExp(`Path=${new URL(url).pathname}; HttpOnly; SameSite=Strict`));
    const field = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.equal(field, cookie);
    return { page, csrf: cookie };
  }

  function post(url: string, csrf: string, password: string, extra: Record<string, string> = {}, field = csrf) {
    return visit(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Cookie: `share_csrf=${csrf}`,
        Origin: new URL(url).origin,
        ...extra,
      },
      body: new URLSearchParams({ _csrf: field, password }).toString(),
    });
  }

  it('asks for the password first, throttles wrong guesses under concurrency, and opens with the right one', async () => {
    const { account, auditId, audit } = await sharedAudit();
    const url = await share(account, auditId, { password: PASSWORD });
    const { page, csrf } = await openForm(url);
    assert.match(page.text, /This report is protected/);
    assert.match(page.text, /<input id="share-password" name="password" type="password"/);
    assert.ok(!page.text.includes(`Score ${audit.score} out of 100`), 'nothing of the report before the password');
    assert.equal((await visit(`${url}/badge.svg`)).status, 403, 'nor its badge');

    // From another site, or without the form's token: refused before any guess is counted.
    assert.equal((await post(url, csrf, PASSWORD, { Origin: 'https://evil.example' })).status, 403);
    assert.equal((await post(url, csrf, PASSWORD, {}, 'A'.repeat(43))).status, 403);
    assert.equal((await post(url, csrf, PASSWORD, { Cookie: '' })).status, 403);

    const { limit, windowMs } = SHARE_RULES.attempts;
    const guesses = await Promise.all(Array.from({ length: limit + 7 }, () => post(url, csrf, 'wrong-password-guess')));
    const statuses = guesses.map((g) => g.status).sort();
    assert.deepEqual(statuses, [...Array(limit).fill(403), ...Array(7).fill(429)], String(statuses));
    for (const refused of guesses.filter((g) => g.status === 429)) {
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter > 0 && retryAfter <= windowMs / 1000, `Retry-After ${retryAfter}`);
      assert.match(refused.text, /Too many wrong passwords for this link/);
    }
    assert.match(guesses.find((g) => g.status === 403)!.text, /That password is not right/);
    // Past the limit even the right password waits for the window.
    const waiting = await post(url, csrf, PASSWORD);
    assert.equal(waiting.status, 429);
    assert.equal(shareCookie(waiting).value, undefined);

    const { clock } = await getStack();
    try {
      clock.advance(windowMs + 1000);
      const unlocked = await post(url, csrf, PASSWORD);
      assert.equal(unlocked.status, 303, unlocked.text);
      assert.equal(unlocked.headers.get('location'), new URL(url).pathname);
      const access = shareCookie(unlocked);
      assert.ok(access.value);
      assert.match(
        access.attributes,
        new RegExp(`Path=${new URL(url).pathname}; HttpOnly; SameSite=Lax; Max-Age=3600`),
      );

      const report = await visit(url, { headers: { Cookie: `share_access=${access.value}` } });
      assert.equal(report.status, 200);
      assert.ok(report.text.includes(`Score ${audit.score} out of 100`));
      const badge = await visit(`${url}/badge.svg`, { headers: { Cookie: `share_access=${access.value}` } });
      assert.equal(badge.status, 200);
      assert.equal(badge.headers.get('cache-control'), 'private, max-age=300');

      // The cookie opens this link only, and not once altered or expired.
      const other = await share(account, auditId, { password: PASSWORD });
      const elsewhere = await visit(other, { headers: { Cookie: `share_access=${access.value}` } });
      assert.match(elsewhere.text, /This report is protected/);
      const altered = access.value!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
      assert.match(
        (await visit(url, { headers: { Cookie: `share_access=${altered}` } })).text,
        /This report is protected/,
      );
      clock.advance(3600_000);
      assert.match(
        (await visit(url, { headers: { Cookie: `share_access=${access.value}` } })).text,
        /This report is protected/,
      );
    } finally {
      clock.reset();
    }
  });

  it('never throttles the right password: each right guess gives its attempt back', async () => {
    const { account, auditId } = await sharedAudit();
    const url = await share(account, auditId, { password: PASSWORD });
    const { csrf } = await openForm(url);
    for (let i = 0; i < SHARE_RULES.attempts.limit + 2; i++)
      assert.equal((await post(url, csrf, PASSWORD)).status, 303);
  });
});

function shareCookie(response: { headers: Headers }): { value: string | undefined; attributes: string } {
  const header = response.headers.getSetCookie().find((c) => c.startsWith('share_access=')) ?? '';
  return { value: /^share_access=([^;]+)/.exec(header)?.[1], attributes: header };
}
