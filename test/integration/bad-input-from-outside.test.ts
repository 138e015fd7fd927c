import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import type { RunningApi } from '../../processes/api-service';
import { ensureChromium } from '../support/chromium';
import { ownerSessionCookie } from '../support/dashboard-session';
import { startReceiver, until } from '../support/receiver';
import { closedPort, serveSite } from '../support/sites';
import {
  api,
  auditUntilEnded,
  getStack,
  newAccount,
  seedLiveAudits,
  startExtraApi,
  stopExtraApi,
  waitForAudit,
} from '../support/stack';
import * as storableResultJson from '../../migrations/20261127000000_storable_result_json';

/**
 * Bytes from outside the service (a receiver's answer, a page's text, title and console) are made
 * storable before they reach Postgres (docs/decisions.md, "Bytes from outside"), and read back
 * through every endpoint and page that shows them.
 */
describe('bad input: bytes from outside', function () {
  this.timeout(600_000);

  it('a receiver answering NUL, binary, compressed or UTF-16 stalls nothing: every audit ends, every webhook is logged', async () => {
    const stack = await getStack();
    const strange = await startStrangeReceivers();
    const good = await startReceiver();
    const site = await serveSite({ '/robots.txt': { body: '' }, '/': { body: '<!doctype html><title>ok</title>' } });
    try {
      const account = await newAccount('pro');
      const events = ['audit.completed', 'audit.failed', 'audit.retried'];
      const webhooks: Record<string, string> = {};
      for (const [name, url] of [...Object.entries(strange.urls), ['good', good.url]]) {
        const created = await api('POST', '/v1/webhooks', { key: account.liveKey, body: { url, events } });
        assert.equal(created.status, 201, created.text);
        webhooks[name] = created.body.webhook_id;
      }
      // One audit that completes, one that fails after every retry (AUDIT_RETRY_DELAYS_MS: three).
      const completing = await api('POST', '/v1/audits', { key: account.liveKey, body: { domain: site.origin } });
      const failing = await api('POST', '/v1/audits', {
        key: account.liveKey,
        body: { domain: `http://127.0.0.1:${await closedPort()}` },
      });
      assert.equal((await waitForAudit(account.liveKey, completing.body.audit_id, 60_000)).body.status, 'completed');
      assert.equal((await waitForAudit(account.liveKey, failing.body.audit_id, 60_000)).body.status, 'failed');

      // Every webhook, whatever its neighbours answered: 1 audit.completed + 3 audit.retried + 1 audit.failed.
      const deliveriesOf = (webhookId: string) => stack.db('deliveries').where({ webhook_id: webhookId });
      for (const [name, webhookId] of Object.entries(webhooks)) {
        const rows = await until(
          async () => {
            const found = await deliveriesOf(webhookId);
            return found.length === 5 && found.every((d) => d.state !== 'pending') && found;
          },
          60_000,
          `the five deliveries of the ${name} webhook, each delivered or failed`,
        );
        const expected = (strange.acknowledges[name] ?? true) ? 'delivered' : 'failed';
        assert.deepEqual(new Set(rows.map((d) => d.state)), new Set([expected]), name);
      }

      // What the log keeps of each answer, read back through the API and the dashboard.
      const cookie = await ownerSessionCookie(account);
      for (const [name, expected] of Object.entries(strange.excerpts)) {
        const log = await api('GET', `/v1/webhooks/${webhooks[name]}/deliveries?limit=20`, { key: account.liveKey });
        assert.equal(log.status, 200, log.text);
        const excerpts = log.body.data.flatMap((d: { attempts: Array<{ response_excerpt: string | null }> }) =>
          d.attempts.map((a) => a.response_excerpt),
        );
        assert.ok(excerpts.length >= 5, `${name}: ${excerpts.length} attempts`);
        for (const excerpt of excerpts) assert.match(String(excerpt), expected, `${name}: ${JSON.stringify(excerpt)}`);
        const page = await fetch(`${stack.url}/webhooks/${webhooks[name]}`, { headers: { cookie } });
        assert.equal(page.status, 200, `${name}: the dashboard's delivery log`);
        assert.doesNotMatch(await page.text(), /\u0000/);
      }
    } finally {
      await strange.close();
      await good.close();
      await site.close();
    }
  });

  it('an audit stored before, with \\u0000 and lone-surrogate escapes, reads back in its history and triage after the migration', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const site = await serveSite({ '/': { body: '' } });
    const monitored = await api('POST', '/v1/sites', {
      key: account.liveKey,
      body: { domain: site.origin, schedule: 'monthly' },
    });
    await site.close();
    assert.equal(monitored.status, 201, monitored.text);
    const domain: string = monitored.body.domain;
    await seedLiveAudits(account, 1, { createdAt: new Date(), domain });
    const { id } = await stack.db('audits').where({ workspace_id: account.workspaceId, domain }).first('id');
    // As JSON.stringify wrote it before: escapes jsonb refuses, beside an escaped backslash that must stay.
    const before = JSON.stringify({
      categories: { seo: 50 },
      findings: [{ fingerprint: 'fp_storedbefore', evidence: 'a\u0000b \uD800 c\\u0000 \uD83D\uDE00' }],
    });
    assert.match(before, /\\u0000.*\\ud800/);
    await stack.db('audits').where({ id }).update({ result_json: before, score: 50, grade: 'F' });
    const history = () => api('GET', `/v1/sites/${monitored.body.site_id}/history`, { key: account.liveKey });
    assert.equal((await history()).status, 500, 'the stored escapes break the history before the migration');

    await storableResultJson.up(stack.db);
    const after = await stack.db('audits').where({ id }).first('result_json');
    assert.deepEqual(JSON.parse(after.result_json).findings[0].evidence, 'a\uFFFDb \uFFFD c\\u0000 \uD83D\uDE00');
    assert.equal((await history()).status, 200);
    const triaged = await api('PUT', `/v1/sites/${monitored.body.site_id}/findings/fp_storedbefore`, {
      key: account.liveKey,
      body: { status: 'ignored' },
    });
    assert.equal(triaged.status, 200, triaged.text);
  });

  describe('a crawled page with NUL and lone surrogates in its text, title and console, and Latin-1 headers', () => {
    let instance: RunningApi | undefined;
    after(async () => stopExtraApi(instance));

    it('completes its audit with the browser stage, and its history, triage, dashboard and PDF read back', async () => {
      ensureChromium((line) => console.log(`  [setup] ${line}`));
      const stack = await getStack();
      instance = await startExtraApi({
        config: {
          ...stack.config,
          browserStage: { taskQueue: `${stack.config.taskQueue}-browser`, timeoutMs: 300_000 },
        },
      });
      const site = await serveSite(STRANGE_PAGES);
      try {
        const account = await newAccount('pro');
        const monitored = await api('POST', '/v1/sites', {
          key: account.liveKey,
          body: { domain: site.origin, schedule: 'monthly' },
        });
        assert.equal(monitored.status, 201, monitored.text);
        const siteId: string = monitored.body.site_id;
        const done = await auditUntilEnded(account.liveKey, site.origin, { baseUrl: instance.url, timeoutMs: 480_000 });
        assert.equal(done.body.status, 'completed', done.text);
        const auditId: string = done.body.audit_id;
        // Rendered, with the console's text kept: NUL and the lone surrogate each became U+FFFD.
        assert.equal(done.body.browser.performance_basis, 'lab');
        const consoleFinding = done.body.findings.find((f: { analyzer: string }) => f.analyzer === 'BP_CONSOLE_ERRORS');
        assert.ok(consoleFinding, 'the console error is reported');
        assert.match(JSON.stringify(consoleFinding), /console NUL \\ufffd|console NUL \uFFFD/i);
        const duplicate = done.body.findings.find((f: { analyzer: string }) => f.analyzer === 'SEO_TITLE_DUPLICATE');
        assert.ok(duplicate, 'the shared title is reported');
        assert.match(duplicate.evidence ?? JSON.stringify(duplicate), /Menu \uFFFD of the day/);
        const disclosure = done.body.findings.find(
          (f: { analyzer: string }) => f.analyzer === 'SEC_VERSION_DISCLOSURE',
        );
        assert.match(JSON.stringify(disclosure), /Caf\u00e9Engine\/1\.0 \u00ff\u00fe/);
        const stored = await stack.db('audits').where({ id: auditId }).first('result_json');
        assert.doesNotMatch(stored.result_json, /\\u0000|\\ud[89a-f]/i);

        const findings = await api('GET', `/v1/audits/${auditId}/findings`, { key: account.liveKey });
        assert.equal(findings.status, 200, findings.text);
        assert.match(findings.text, /Menu \uFFFD of the day|Menu \\ufffd of the day/i);
        const history = await api('GET', `/v1/sites/${siteId}/history`, { key: account.liveKey });
        assert.equal(history.status, 200, history.text);
        assert.deepEqual(
          history.body.data.map((h: { audit_id: string }) => h.audit_id),
          [auditId],
        );
        const fingerprint: string = duplicate.fingerprint;
        const triaged = await api('PUT', `/v1/sites/${siteId}/findings/${fingerprint}`, {
          key: account.liveKey,
          body: { status: 'accepted', note: 'the menu title is shared on purpose' },
        });
        assert.equal(triaged.status, 200, triaged.text);

        const cookie = await ownerSessionCookie(account);
        for (const path of [`/audits/${auditId}`, `/sites/${siteId}`, `/sites/${siteId}/findings/${fingerprint}`]) {
          const page = await fetch(`${stack.url}${path}`, { headers: { cookie } });
          assert.equal(page.status, 200, path);
          assert.doesNotMatch(await page.text(), /\u0000/, path);
        }
        // The PDF is rendered ahead for pro audits: 202 while it renders, then the signed link.
        const link = await until(
          async () => {
            const answer = await api('GET', `/v1/audits/${auditId}/pdf`, { key: account.liveKey });
            return answer.status === 200 && (answer.body.url as string);
          },
          120_000,
          'the PDF report link',
        );
        const pdf = Buffer.from(await (await fetch(link)).arrayBuffer());
        assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
      } finally {
        await site.close();
      }
    });
  });
});

const TITLE = 'Menu \u0000 of the day';
const CONSOLE = `<script>console.error('console NUL \\u0000 and lone \\uD800 surrogate'); document.title = '\\uDC00' + document.title;</script>`;
const STRANGE_PAGES = {
  '/robots.txt': { body: '' },
  '/': {
    // Bytes above 0x7F in a header: Latin-1 on the wire, quoted as evidence.
    headers: { 'x-powered-by': 'Caf\u00e9Engine/1.0 \u00ff\u00fe' },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${TITLE}</title></head><body><h1>Caf\u0000e</h1><p>Text with a NUL \u0000 byte and &#xD800; a surrogate reference.</p><a href="/menu">Menu</a>${CONSOLE}</body></html>`,
  },
  '/menu': {
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${TITLE}</title></head><body><h1>Menu</h1><p>Soup\u0000 and bread.</p><a href="/">Home</a></body></html>`,
  },
};

interface StrangeReceivers {
  urls: Record<string, string>;
  /** Whether a receiver acknowledges (2xx); absent: it does. */
  acknowledges: Record<string, boolean>;
  /** What the delivery log keeps of each receiver's answer. */
  excerpts: Record<string, RegExp>;
  close(): Promise<void>;
}

/** Receivers on 127.0.0.1 answering with bytes Postgres would refuse, or that are no text at all. */
async function startStrangeReceivers(): Promise<StrangeReceivers> {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806', 'hex');
  const answers: Record<string, { status: number; headers: Record<string, string>; body: Buffer; excerpt: RegExp }> = {
    nul: { status: 200, headers: {}, body: Buffer.from('ok\u0000fine'), excerpt: /^ok\uFFFDfine$/ },
    png: { status: 200, headers: { 'content-type': 'image/png' }, body: png, excerpt: /binary.*image\/png/ },
    gzip: {
      status: 500,
      headers: { 'content-encoding': 'gzip' },
      body: zlib.gzipSync('{"error":"down"}'),
      excerpt: /binary.*Content-Encoding gzip/,
    },
    utf16: {
      status: 400,
      headers: {},
      body: Buffer.from('bad request', 'utf16le'),
      excerpt: /^\[binary response body/,
    },
    invalidUtf8: {
      status: 202,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      // A Latin-1 é and an encoded surrogate (CESU-8) in otherwise UTF-8 text: text, each undecodable byte U+FFFD.
      body: Buffer.concat([
        Buffer.from('accepted for processing, caf'),
        Buffer.from([0xe9]),
        Buffer.from(' and '),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from(' queued as job 42'),
      ]),
      excerpt: /^accepted for processing, caf\uFFFD and \uFFFD+ queued as job 42$/,
    },
  };
  const servers = await Promise.all(
    Object.values(answers).map(async (answer) => {
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => res.writeHead(answer.status, answer.headers).end(answer.body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  const names = Object.keys(answers);
  return {
    urls: Object.fromEntries(
      names.map((name, i) => [name, `http://127.0.0.1:${(servers[i].address() as AddressInfo).port}/hook`]),
    ),
    acknowledges: Object.fromEntries(names.map((name) => [name, answers[name].status < 300])),
    excerpts: Object.fromEntries(names.map((name) => [name, answers[name].excerpt])),
    close: async () => {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
