import assert from 'node:assert/strict';
import { api, getStack, newAccount, waitForAudit } from '../support/stack';

/**
 * The test stack serves plain HTTP on 127.0.0.1, where HTTPS cannot be offered: the check that it is
 * is left out. (HSTS and the TLS checks answer not_applicable without HTTPS by themselves; behind TLS
 * with PUBLIC_BASE_URL=https://… the dashboard sends HSTS.) security.txt is checked, and may warn only
 * that it is not served over HTTPS.
 */
const CANNOT_APPLY_ON_LOOPBACK_HTTP = new Set(['SEC_HTTPS_UNAVAILABLE']);
const ONLY_FOR_WANT_OF_HTTPS = 'security.txt is published but it is not served over HTTPS.';

describe('dashboard: our own audit of the dashboard', function () {
  this.timeout(120_000);

  it('finds no failing security, accessibility or best-practice check on the dashboard origin', async () => {
    const { url } = await getStack();
    const account = await newAccount('pro');
    const started = await api<{ audit_id: string }>('POST', '/v1/audits', {
      key: account.liveKey,
      body: { domain: url },
    });
    assert.equal(started.status, 202, started.text);
    const audit = await waitForAudit(account.liveKey, started.body.audit_id, 90_000);
    assert.equal(audit.body.status, 'completed', audit.text);
    const analyzers = audit.body.analyzers as Array<{ code: string; category: string; status: string }>;
    const findings = audit.body.findings as Array<{ analyzer: string; message: string }>;
    const securityTxtMessage = findings.find((f) => f.analyzer === 'SEC_SECURITY_TXT_MISSING')?.message;
    const failing = analyzers
      .filter((a) => ['security', 'accessibility', 'best_practices'].includes(a.category))
      .filter((a) => !CANNOT_APPLY_ON_LOOPBACK_HTTP.has(a.code))
      .filter(
        (a) =>
          !(
            a.code === 'SEC_SECURITY_TXT_MISSING' &&
            a.status === 'warn' &&
            securityTxtMessage === ONLY_FOR_WANT_OF_HTTPS
          ),
      )
      .filter((a) => a.status === 'fail' || a.status === 'warn')
      .map((a) => `${a.code} ${a.status}`);
    assert.deepEqual(failing, []);
    // The crawl saw the dashboard's pages, not only an error.
    const pages = (audit.body.crawl.pages as Array<{ url: string }>).map((p) => new URL(p.url).pathname);
    assert.ok(pages.includes('/login') && pages.includes('/signup'), pages.join(', '));
  });
});
