import assert from 'node:assert/strict';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import { assertValidAuditJson } from '../../src/audits/validate-audit';
import { api, getStack, newAccount, waitForAudit, type TestAccount } from '../support/stack';
import { serveSite, type LocalSite } from '../support/sites';
import { startReceiver, until } from '../support/receiver';

const HOME = (extra: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme widgets for every workshop</title>
<meta name="description" content="Acme sells widgets."></head><body><h1>Acme</h1>
<img src="/a.png" alt="logo" width="10" height="10">${extra}</body></html>`;

type Routes = Parameters<typeof serveSite>[0];

interface AuditBody {
  audit_id: string;
  domain: string;
  score: number;
  categories: Record<string, { score: number }>;
  findings: Array<{ analyzer: string; fingerprint: string; triage?: { status: string; note: string | null } }>;
  comparison?: {
    previous_audit_id: string;
    previous_score: number;
    score_delta: number;
    categories: Record<string, number>;
    new: string[];
    fixed: string[];
    unchanged: number;
  };
}

async function audit(account: TestAccount, origin: string, key = account.liveKey) {
  const accepted = await api('POST', '/v1/audits', { key, body: { domain: origin } });
  assert.equal(accepted.status, 202, accepted.text);
  const done = await waitForAudit(key, accepted.body.audit_id, 40_000);
  assert.equal(done.body.status, 'completed', done.text);
  assertValidAuditJson(done.body);
  return { body: done.body as AuditBody, text: done.text };
}

/** A site row as POST /v1/sites writes it (the schedule is not exercised here), and its triage rows. */
async function siteWithTriage(
  account: TestAccount,
  domain: string,
  triage: Record<string, [string, string | null]>,
  mode: 'live' | 'test' = 'live',
) {
  const { db } = await getStack();
  const now = new Date();
  const siteId = `site_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  await db('sites').insert({
    id: siteId,
    workspace_id: account.workspaceId,
    account_id: account.accountId,
    mode,
    domain,
    schedule: 'weekly',
    paused: true,
    created_at: now,
    updated_at: now,
  });
  for (const [fingerprint, [status, note]] of Object.entries(triage))
    await db('site_finding_triage').insert({
      site_id: siteId,
      fingerprint,
      status,
      note,
      set_by: 'key:test',
      updated_at: now,
    });
}

describe('comparison with the previous audit (live)', function () {
  this.timeout(120_000);
  const sites: LocalSite[] = [];
  after(async () => {
    for (const s of sites) await s.close();
  });

  it('names the fixed and the new problem after the site changed, carries triage, and POSTs it in audit.completed', async () => {
    // One mutable route table: the site changes between the two audits.
    const routes: Routes = {
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
      '/': { headers: { 'x-powered-by': 'Express 4.18.2' }, body: HOME('') },
    };
    const site = await serveSite(routes);
    sites.push(site);
    const account = await newAccount('pro');
    const receiver = await startReceiver();
    try {
      const hook = await api('POST', '/v1/webhooks', { key: account.liveKey, body: { url: receiver.url } });
      assert.equal(hook.status, 201, hook.text);

      const first = await audit(account, site.origin);
      assert.equal(first.body.comparison, undefined, 'the first audit of a domain has nothing to compare with');
      const poweredBy = findingFingerprint('SEC_VERSION_DISCLOSURE', 'x-powered-by');
      assert.ok(first.body.findings.some((f) => f.fingerprint === poweredBy));

      // Fixed: the X-Powered-By header. New: an image without alt, and a session cookie without HttpOnly.
      routes['/'] = {
        headers: { 'set-cookie': 'sessionid=42; Path=/' },
        body: HOME('<img src="/b.png" width="10" height="10">'),
      };
      const cookie = findingFingerprint('SEC_COOKIE_INSECURE', 'sessionid httponly');
      const unchanged = first.body.findings[0]!.fingerprint;
      await siteWithTriage(account, first.body.domain, {
        [cookie]: ['ignored', 'Set by the CDN, not by us'],
        [unchanged]: ['accepted', null],
      });

      const second = await audit(account, site.origin);
      const c = second.body.comparison;
      assert.ok(c, 'the second audit is compared with the first');
      assert.equal(c.previous_audit_id, first.body.audit_id);
      assert.equal(c.previous_score, first.body.score);
      assert.equal(c.score_delta, second.body.score - first.body.score);
      // Each new problem by its subject: the image without alt, and its address answering 404 (the
      // other broken image, /a.png, is unchanged).
      assert.deepEqual(
        [...c.new].sort(),
        [
          findingFingerprint('A11Y_IMG_ALT_MISSING', 'img src=/b.png'),
          findingFingerprint('SEO_BROKEN_LINK', '/b.png'),
        ].sort(),
        'the ignored cookie is not new',
      );
      assert.deepEqual(c.fixed, [poweredBy]);
      assert.equal(c.unchanged, new Set(first.body.findings.map((f) => f.fingerprint)).size - 1);
      const triaged = second.body.findings.filter((f) => f.triage);
      assert.deepEqual(triaged.find((f) => f.fingerprint === cookie)?.triage, {
        status: 'ignored',
        note: 'Set by the CDN, not by us',
      });
      assert.deepEqual(triaged.find((f) => f.fingerprint === unchanged)?.triage, { status: 'accepted', note: null });
      // What the next audit will compare with: the final scores and fingerprints, not the whole JSON.
      const { db } = await getStack();
      const { comparison_basis: basis } = await db('audits')
        .where({ id: second.body.audit_id })
        .first('comparison_basis');
      assert.equal(basis.score, second.body.score);
      assert.deepEqual(
        basis.findings.map((f: { fingerprint: string }) => f.fingerprint),
        [...new Set(second.body.findings.map((f) => f.fingerprint))],
      );

      const posted = await until(
        () =>
          receiver.received.find(
            (r) =>
              r.headers['x-service-event'] === 'audit.completed' &&
              r.headers['x-service-audit-id'] === second.body.audit_id,
          ),
        60_000,
        'audit.completed of the second audit',
      );
      assert.equal(posted.body, second.text, 'the POSTed bytes are the served bytes, comparison included');
      assert.deepEqual(JSON.parse(posted.body).comparison.new, c.new);
    } finally {
      await receiver.close();
    }
  });

  it('in test mode a domain has one audit, re-run in place: nothing to compare with, the test site’s triage carried', async () => {
    const account = await newAccount('pro');
    const domain = 'https://monitored-synthetic.example';
    const first = await audit(account, domain, account.testKey);
    assert.equal(first.body.comparison, undefined);
    const target = first.body.findings[0]!;
    await siteWithTriage(
      account,
      first.body.domain,
      { [target.fingerprint]: ['accepted', 'Known, fixed next sprint'] },
      'test',
    );
    const again = await audit(account, domain, account.testKey);
    assert.equal(again.body.audit_id, first.body.audit_id, 'the same deterministic audit');
    assert.equal(again.body.comparison, undefined, 'never compared with itself');
    assert.equal(again.body.score, first.body.score);
    for (const f of again.body.findings.filter((x) => x.fingerprint === target.fingerprint))
      assert.deepEqual(f.triage, { status: 'accepted', note: 'Known, fixed next sprint' });
    assert.equal(
      again.body.findings.filter((f) => f.triage).length,
      first.body.findings.filter((f) => f.fingerprint === target.fingerprint).length,
    );
  });
});
