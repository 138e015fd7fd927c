import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Log } from 'sarif';
import { findingFingerprint } from '../../src/monitoring/fingerprint';
import { parseCsv } from '../support/csv';
import { serveSite, type LocalSite } from '../support/sites';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';

const ROOT = path.join(__dirname, '..', '..');
const sarifSchema = JSON.parse(
  fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'),
) as object;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The customer CLI exactly as the test contract spells it: npm run --silent cli -- audit …, configured by its environment. */
async function cli(key: string, ...args: string[]): Promise<Run> {
  const { url } = await getStack();
  const env = { ...process.env, AUDIT_API_URL: `${url}/v1`, AUDIT_API_KEY: key };
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: ROOT, env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const explain = (run: Run) => `exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr}`;

describe('customer CLI against the running service (npm run cli)', function () {
  this.timeout(120_000);
  let account: TestAccount;
  let dir: string;
  before(async () => {
    account = await newAccount('pro');
    dir = await mkdtemp(path.join(os.tmpdir(), 'cli-test-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('test mode: --wait exits 0 with the report, which is the audit the API serves', async () => {
    const text = await cli(account.testKey, 'audit', 'https://cli-text.example.com', '--wait');
    assert.equal(text.code, 0, explain(text));
    assert.match(
      text.stdout,
      /^https:\/\/cli-text\.example\.com: score \d+ \([A-F+]+\)\naudit aud_\S+ · test · tier pro/,
    );
    assert.equal(text.stderr, '', 'quiet when not on a terminal');

    const json = await cli(account.testKey, 'audit', 'https://cli-text.example.com', '--wait', '--format', 'json');
    assert.equal(json.code, 0, explain(json));
    const audit = JSON.parse(json.stdout);
    const served = await api('GET', `/v1/audits/${audit.audit_id}`, { key: account.testKey });
    assert.deepEqual(audit, served.body);
    assert.ok(text.stdout.includes(`audit ${audit.audit_id}`));
  });

  it('--fail-under above the score exits 1 with the reason; at the score exits 0', async () => {
    const domain = 'https://cli-gate.example.com';
    const first = await cli(account.testKey, 'audit', domain, '--format', 'json', '--fail-under', '0');
    assert.equal(first.code, 0, explain(first));
    const { score } = JSON.parse(first.stdout) as { score: number };
    assert.ok(score < 100);
    const failing = await cli(account.testKey, 'audit', domain, '--fail-under', String(score + 1), '--format', 'json');
    assert.equal(failing.code, 1, explain(failing));
    assert.equal(failing.stderr, `gate failed: score ${score} is under ${score + 1}\n`);
    const text = await cli(account.testKey, 'audit', domain, '--fail-under', String(score + 1));
    assert.equal(text.code, 1, explain(text));
    assert.ok(text.stdout.endsWith(`gate: FAILED: score ${score} is under ${score + 1}\n`));
    const passing = await cli(account.testKey, 'audit', domain, '--fail-under', String(score));
    assert.equal(passing.code, 0, explain(passing));
    assert.ok(passing.stdout.endsWith(`gate: passed (score at least ${score})\n`));
  });

  it('writes each format with --output: SARIF valid against the official schema, JUnit XML, CSV', async () => {
    const domain = 'https://cli-formats.example.com';
    const ajv = new Ajv04({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(sarifSchema);
    const sarifFile = path.join(dir, 'audit.sarif');
    const sarif = await cli(account.testKey, 'audit', domain, '--format', 'sarif', '--output', sarifFile);
    assert.equal(sarif.code, 0, explain(sarif));
    assert.equal(sarif.stdout, '');
    assert.match(sarif.stderr, new RegExp(`score \\d+ .*; sarif written to ${sarifFile.replace(/[.]/g, '\\.')}\\n$`));
    const log = JSON.parse(await readFile(sarifFile, 'utf8')) as Log;
    assert.ok(validate(log), JSON.stringify(validate.errors));
    const run = log.runs[0]!;
    const audit = (await api('GET', `/v1/audits/${run.properties!.audit_id}`, { key: account.testKey })).body;
    assert.equal(run.results!.length, audit.findings.length);
    assert.equal(run.tool.driver.rules!.length, audit.analyzers.length);

    const junitFile = path.join(dir, 'junit.xml');
    const junit = await cli(account.testKey, 'audit', domain, '--format', 'junit', '--output', junitFile);
    assert.equal(junit.code, 0, explain(junit));
    const xml = await readFile(junitFile, 'utf8');
    assert.equal(XMLValidator.validate(xml), true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    assert.equal(parsed.testsuites.testsuite.testcase.length, audit.analyzers.length);
    assert.equal(
      Number(parsed.testsuites.failures),
      audit.analyzers.filter((a: { status: string }) => a.status === 'fail').length,
    );

    const csv = await cli(account.testKey, 'audit', domain, '--format', 'csv');
    assert.equal(csv.code, 0, explain(csv));
    const rows = parseCsv(csv.stdout);
    assert.deepEqual(rows[0], [
      'finding_id',
      'analyzer',
      'category',
      'severity',
      'title',
      'count',
      'url',
      'depth',
      'referrers',
    ]);
    assert.deepEqual(new Set(rows.slice(1).map((r) => r[0])), new Set(audit.findings.map((f: { id: string }) => f.id)));
  });

  it('exits 2 with a message on stderr for usage errors and API errors', async () => {
    const usage = await cli(account.testKey, 'audit', 'https://cli-usage.example.com', '--fail-on-new', 'severe');
    assert.equal(usage.code, 2, explain(usage));
    assert.match(usage.stderr, /--fail-on-new <severity>' argument 'severe' is invalid/);
    assert.equal(usage.stdout, '');
    const missing = await cli(account.testKey, 'audit');
    assert.equal(missing.code, 2, explain(missing));
    assert.match(missing.stderr, /missing required argument 'domain'/);
    const badKey = await cli('svc_test_wrong', 'audit', 'https://cli-usage.example.com', '--wait');
    assert.equal(badKey.code, 2, explain(badKey));
    assert.match(badKey.stderr, /^error: the audit was not triggered: invalid_api_key: .* \(request_id req_\w+\)\n$/);
    const badDomain = await cli(account.testKey, 'audit', 'https://exa mple.com');
    assert.equal(badDomain.code, 2, explain(badDomain));
    assert.match(badDomain.stderr, /invalid_domain/);
  });

  it('--render all reaches the API: kept on a team audit, tier_required below team; an unknown value exits 2', async () => {
    const domain = 'https://cli-render.example.com';
    const team = await newAccount('team');
    const accepted = await cli(team.testKey, 'audit', domain, '--render', 'all', '--format', 'json');
    assert.equal(accepted.code, 0, explain(accepted));
    const { db } = await getStack();
    const row = await db('audits')
      .where({ id: JSON.parse(accepted.stdout).audit_id })
      .first('render');
    assert.equal(row.render, 'all');

    const refused = await cli(account.testKey, 'audit', domain, '--render', 'all');
    assert.equal(refused.code, 2, explain(refused));
    assert.match(
      refused.stderr,
      /^error: the audit was not triggered: tier_required: .*render: "all".* team tier or higher; this account is on pro/,
    );
    const unknown = await cli(team.testKey, 'audit', domain, '--render', 'every');
    assert.equal(unknown.code, 2, explain(unknown));
    assert.match(unknown.stderr, /'--render <pages>' argument 'every' is invalid\. Allowed choices are sample, all\./);
    assert.equal(unknown.stdout, '');
  });

  describe('live: --fail-on-new against the domain’s previous audit', () => {
    let site: LocalSite;
    const home = (extra: string) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<title>Acme widgets for every workshop</title><meta name="description" content="Acme sells widgets."></head>` +
      `<body><h1>Acme</h1>${extra}</body></html>`;
    const routes: Parameters<typeof serveSite>[0] = {
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
      '/': { body: home('') },
    };
    before(async () => {
      site = await serveSite(routes);
    });
    after(() => site.close());

    it('passes the first audit and one whose new findings are below the threshold, fails on a new one at it', async () => {
      const first = await cli(account.liveKey, 'audit', site.origin, '--fail-on-new', 'info');
      assert.equal(first.code, 0, explain(first));
      assert.match(first.stdout, /no previous audit of this domain to compare with/);
      assert.match(first.stdout, /gate: passed \(no previous audit, so nothing is new\)/);

      // New and high: an image without alt, and its address answering 404.
      routes['/'] = { body: home('<img src="/b.png" width="10" height="10">') };
      const second = await cli(account.liveKey, 'audit', site.origin, '--fail-on-new', 'critical', '--format', 'json');
      assert.equal(second.code, 0, explain(second));
      const secondAudit = JSON.parse(second.stdout);
      assert.deepEqual(
        [...secondAudit.comparison.new].sort(),
        [
          findingFingerprint('A11Y_IMG_ALT_MISSING', 'img src=/b.png'),
          findingFingerprint('SEO_BROKEN_LINK', '/b.png'),
        ].sort(),
      );

      // New since the second audit: a session cookie without HttpOnly (high); the image is not new any more.
      routes['/'] = { headers: { 'set-cookie': 'sessionid=42; Path=/' }, body: routes['/']!.body };
      const third = await cli(account.liveKey, 'audit', site.origin, '--fail-on-new', 'high', '--format', 'sarif');
      assert.equal(third.code, 1, explain(third));
      const log = JSON.parse(third.stdout);
      const cookie = findingFingerprint('SEC_COOKIE_INSECURE', 'sessionid httponly');
      assert.deepEqual(
        log.runs[0].results
          .filter((r: { baselineState: string }) => r.baselineState === 'new')
          .map(
            (r: { partialFingerprints: { primaryLocationLineHash: string } }) =>
              r.partialFingerprints.primaryLocationLineHash,
          ),
        [cookie],
      );
      assert.equal(log.runs[0].properties.previous_audit_id, secondAudit.audit_id);
      assert.match(
        third.stderr,
        new RegExp(
          `^gate failed: 1 new finding at or above high since ${secondAudit.audit_id}: SEC_COOKIE_INSECURE\\n$`,
        ),
      );
    });
  });
});
