import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { apiBaseUrl, main, type CliIo } from '../../src/cli/main';
import { readEnvironment } from '../../src/cli/env';
import type { Audit } from '../../src/cli/types';
import { cliAudit, withNew } from '../support/cli-audits';

/** A stand-in API: the trigger, then `statuses` envelopes, then the audit; every request recorded. */
function fakeApi(audit: Audit, statuses: object[] = [], trigger: { status: number; body: object } | null = null) {
  const requests: Array<{ method: string; url: string; auth: string | null; body: string }> = [];
  const pending = [...statuses];
  const fetch = async (input: Request) => {
    const body = await input.text();
    requests.push({ method: input.method, url: input.url, auth: input.headers.get('authorization'), body });
    const json = (status: number, body: object) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    if (input.method === 'POST')
      return trigger
        ? json(trigger.status, trigger.body)
        : json(202, { audit_id: audit.audit_id, status: 'queued', estimated_completion: audit.completed_at });
    return json(200, pending.shift() ?? audit);
  };
  return { fetch: fetch as unknown as typeof globalThis.fetch, requests };
}

function io(api: ReturnType<typeof fakeApi>, over: Partial<CliIo> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t), isTTY: false },
      env: { apiUrl: 'http://api.test', apiKey: 'svc_test_key', ci: false },
      fetch: api.fetch,
      sleep: async () => undefined,
      ...over,
    } satisfies CliIo,
  };
}

describe('CLI main (src/cli/main.ts) against a stand-in API', () => {
  const audit = cliAudit();

  it('triggers with the key, waits through the envelopes and exits 0 with the text report', async () => {
    const api = fakeApi(audit, [{ audit_id: audit.audit_id, domain: audit.domain, status: 'running' }]);
    const run = io(api);
    assert.equal(await main(['audit', 'shop.example.com', '--wait', '--tier', 'pro'], run.io), 0);
    assert.deepEqual(
      api.requests.map((r) => `${r.method} ${r.url}`),
      [
        'POST http://api.test/v1/audits',
        `GET http://api.test/v1/audits/${audit.audit_id}`,
        `GET http://api.test/v1/audits/${audit.audit_id}`,
      ],
    );
    assert.ok(api.requests.every((r) => r.auth === 'Bearer svc_test_key'));
    assert.match(run.out.join(''), /^https:\/\/shop\.example\.com: score 66 \(D\)/);
    assert.deepEqual(run.err, [], 'no progress line without a terminal');
  });

  it('exits 1 when the gate fails, with the reason on stderr beside a machine-readable format', async () => {
    const fresh = audit.findings.find((f) => f.severity === 'high')!;
    const run = io(fakeApi(withNew(audit, [fresh])));
    assert.equal(
      await main(['audit', 'https://shop.example.com', '--fail-on-new', 'high', '--format', 'json'], run.io),
      1,
    );
    assert.equal(JSON.parse(run.out.join('')).audit_id, audit.audit_id);
    assert.match(run.err.join(''), /^gate failed: 1 new finding at or above high since aud_01JPREVIOUS/);
    const score = io(fakeApi(audit));
    assert.equal(await main(['audit', 'https://shop.example.com', '--fail-under', '67'], score.io), 1);
    assert.match(score.out.join(''), /gate: FAILED: score 66 is under 67/);
  });

  it('exits 2 on API errors, a failed audit, a timeout and a missing setting, saying why on stderr', async () => {
    const refused = io(
      fakeApi(audit, [], {
        status: 400,
        body: { error: { code: 'invalid_domain', message: 'bad', request_id: 'req_1', docs_url: 'x' } },
      }),
    );
    assert.equal(await main(['audit', 'nope', '--wait'], refused.io), 2);
    assert.equal(refused.err.join(''), 'error: the audit was not triggered: invalid_domain: bad (request_id req_1)\n');

    const failedEnvelope = {
      audit_id: audit.audit_id,
      domain: audit.domain,
      status: 'failed',
      error: { code: 'domain_unreachable', message: 'no answer' },
    };
    const failed = io(fakeApi(audit, [failedEnvelope]));
    assert.equal(await main(['audit', 'shop.example.com', '--wait'], failed.io), 2);
    assert.match(failed.err.join(''), /failed: domain_unreachable: no answer/);

    let clock = 0;
    const running = { audit_id: audit.audit_id, domain: audit.domain, status: 'running' };
    const slow = io(fakeApi(audit, Array(100).fill(running)), {
      sleep: async (ms) => void (clock += ms),
    });
    const realNow = Date.now;
    Date.now = () => clock;
    try {
      assert.equal(await main(['audit', 'shop.example.com', '--wait', '--timeout', '5'], slow.io), 2);
    } finally {
      Date.now = realNow;
    }
    assert.match(slow.err.join(''), /did not complete within 5 s/);

    const unset = io(fakeApi(audit), { env: { apiUrl: undefined, apiKey: 'k', ci: false } });
    assert.equal(await main(['audit', 'shop.example.com'], unset.io), 2);
    assert.match(unset.err.join(''), /set AUDIT_API_URL/);
  });

  it('shows a progress line on a terminal only, and never in CI', async () => {
    const running = {
      audit_id: audit.audit_id,
      domain: audit.domain,
      status: 'running',
      progress: { phase: 'crawling', pages_crawled: 3, pages_discovered: 9 },
    };
    const tty = io(fakeApi(audit, [running]));
    tty.io.stderr.isTTY = true;
    assert.equal(await main(['audit', 'shop.example.com', '--wait'], tty.io), 0);
    const shown = tty.err.join('');
    assert.ok(shown.includes(`audit ${audit.audit_id}: crawling, 3 of 9 pages crawled…`));
    assert.ok(shown.endsWith('\r\x1b[2K'), 'erased before the report');
    const ci = io(fakeApi(audit, [running]), { env: { apiUrl: 'http://api.test', apiKey: 'k', ci: true } });
    ci.io.stderr.isTTY = true;
    assert.equal(await main(['audit', 'shop.example.com', '--wait'], ci.io), 0);
    assert.deepEqual(ci.err, []);
  });

  it('writes --output to a file, and without --wait prints the trigger answer', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-main-'));
    try {
      const file = path.join(dir, 'report.sarif');
      const run = io(fakeApi(audit));
      assert.equal(await main(['audit', 'shop.example.com', '--format', 'sarif', '--output', file], run.io), 0);
      assert.equal(JSON.parse(await readFile(file, 'utf8')).version, '2.1.0');
      assert.deepEqual(run.out, []);
      assert.match(run.err.join(''), /score 66 \(D\).*; sarif written to .*report\.sarif\n$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const queued = io(fakeApi(audit));
    assert.equal(await main(['audit', 'shop.example.com', '--format', 'json'], queued.io), 0);
    assert.equal(JSON.parse(queued.out.join('')).status, 'queued');
  });

  it('sends --render to the API, leaves it out by default, and refuses a value it does not know (exit 2)', async () => {
    const all = fakeApi(audit);
    assert.equal(await main(['audit', 'shop.example.com', '--render', 'all'], io(all).io), 0);
    assert.deepEqual(JSON.parse(all.requests[0]!.body), { domain: 'https://shop.example.com', render: 'all' });
    const sample = fakeApi(audit);
    assert.equal(await main(['audit', 'shop.example.com', '--render', 'sample'], io(sample).io), 0);
    assert.deepEqual(JSON.parse(sample.requests[0]!.body), { domain: 'https://shop.example.com', render: 'sample' });
    const plain = fakeApi(audit);
    assert.equal(await main(['audit', 'shop.example.com', '--tier', 'pro'], io(plain).io), 0);
    assert.deepEqual(JSON.parse(plain.requests[0]!.body), { domain: 'https://shop.example.com', tier: 'pro' });

    const unknown = fakeApi(audit);
    const run = io(unknown);
    assert.equal(await main(['audit', 'shop.example.com', '--render', 'every'], run.io), 2);
    assert.match(
      run.err.join(''),
      /'--render <pages>' argument 'every' is invalid\. Allowed choices are sample, all\./,
    );
    assert.deepEqual(run.out, []);
    assert.deepEqual(unknown.requests, [], 'nothing sent');
  });

  it('reads AUDIT_API_URL with or without /v1, and the CI variable', () => {
    assert.equal(apiBaseUrl('https://audits.example.net'), 'https://audits.example.net/v1');
    assert.equal(apiBaseUrl('https://audits.example.net/v1/'), 'https://audits.example.net/v1');
    assert.equal(apiBaseUrl('http://127.0.0.1:3000/api/v1'), 'http://127.0.0.1:3000/api/v1');
    assert.throws(() => apiBaseUrl('ftp://x'), /http:\/\/ or https:\/\//);
    assert.throws(() => apiBaseUrl('audits.example.net'), /not a URL/);
    assert.deepEqual(readEnvironment({ AUDIT_API_URL: ' http://a ', AUDIT_API_KEY: 'k', CI: 'true' }), {
      apiUrl: 'http://a',
      apiKey: 'k',
      ci: true,
    });
    assert.equal(readEnvironment({ CI: 'false' }).ci, false);
    assert.equal(readEnvironment({}).ci, false);
  });
});
