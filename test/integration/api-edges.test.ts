import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { KeyAuthenticator } from '../../src/accounts/authenticator';
import { api, getStack, newAccount, startExtraApi, waitForAudit } from '../support/stack';
import { assertEnvelope } from '../support/envelope';
import { rawRequest, rawRequestWithContinue } from '../support/raw-http';

async function auditCount(workspaceId: string): Promise<number> {
  const { db } = await getStack();
  const [{ count }] = await db('audits').where({ workspace_id: workspaceId }).count<{ count: string }[]>('id as count');
  return Number(count);
}

describe('API edges: authentication, errors, envelope and headers', () => {
  it('rejects a missing, malformed, unknown or revoked key with 401 invalid_api_key', async () => {
    const account = await newAccount('pro');
    assertEnvelope(await api('GET', '/v1/audits'), 401, 'invalid_api_key', /missing Authorization/);
    assertEnvelope(await api('GET', '/v1/audits', { headers: { Authorization: 'Basic abc' } }), 401, 'invalid_api_key');
    assertEnvelope(await api('GET', '/v1/audits', { key: 'svc_live_short' }), 401, 'invalid_api_key');
    assertEnvelope(await api('GET', '/v1/audits', { key: `svc_live_${'A'.repeat(32)}` }), 401, 'invalid_api_key');
    const { db } = await getStack();
    await db('api_keys').where({ id: account.liveKeyId }).update({ revoked_at: new Date() });
    // A fresh authenticator (another instance) sees the revocation at once.
    const other = await startExtraApi();
    assertEnvelope(
      await api('GET', '/v1/audits', { key: account.liveKey, baseUrl: other.url }),
      401,
      'invalid_api_key',
    );
    assert.equal((await api('GET', '/v1/audits', { key: account.testKey, baseUrl: other.url })).status, 200);
  });

  it('gives unauthenticated responses the free tier rate-limit headers', async () => {
    const response = await api('GET', '/v1/usage');
    assert.equal(response.headers.get('x-ratelimit-limit'), '5');
    assert.equal(response.headers.get('x-ratelimit-remaining'), '5');
    const now = new Date();
    const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000;
    assert.equal(response.headers.get('x-ratelimit-reset'), String(nextMonth));
  });

  it('answers unknown routes with 404 not_found and wrong methods with 405 and Allow', async () => {
    const { testKey } = await newAccount('pro');
    assertEnvelope(await api('GET', '/v1/nothing-here', { key: testKey }), 404, 'not_found');
    assertEnvelope(await api('GET', '/elsewhere'), 404, 'not_found');
    const wrong = await api('DELETE', '/v1/audits', { key: testKey });
    assertEnvelope(wrong, 405, 'method_not_allowed');
    assert.match(wrong.headers.get('allow') ?? '', /POST/);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  });

  it('accepts JSON only, within 64 KiB, and stores nothing on bad input', async () => {
    const { testKey, workspaceId } = await newAccount('pro');
    const plain = await api('POST', '/v1/audits', {
      key: testKey,
      rawBody: 'domain=https://a.com',
      headers: { 'Content-Type': 'text/plain' },
    });
    assertEnvelope(plain, 400, 'invalid_request', /Content-Type must be application\/json, got "text\/plain"/);
    assertEnvelope(
      await api('POST', '/v1/audits', {
        key: testKey,
        rawBody: '{"domain": ',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'invalid_request',
      /not valid JSON/,
    );
    const huge = { domain: 'https://example.com', webhook_url: `https://hooks.example.com/${'x'.repeat(70 * 1024)}` };
    assertEnvelope(await api('POST', '/v1/audits', { key: testKey, body: huge }), 413, 'payload_too_large');
    assertEnvelope(
      await api('POST', '/v1/audits', { key: testKey, body: {} }),
      400,
      'invalid_request',
      /domain is required/,
    );
    assertEnvelope(
      await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://a.com', extra: 1 } }),
      400,
      'invalid_request',
      /extra is not allowed/,
    );
    assertEnvelope(
      await api('POST', '/v1/audits', { key: testKey, body: { domain: 'example.com' } }),
      400,
      'invalid_domain',
      /missing a protocol/,
    );
    assertEnvelope(
      await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://example.com/path' } }),
      400,
      'invalid_domain',
      /path/,
    );
    assert.equal(await auditCount(workspaceId), 0);
  });

  it('refuses a trigger tier above the account tier with tier_required naming the tier', async () => {
    const { testKey, liveKey, workspaceId } = await newAccount('pro');
    assertEnvelope(
      await api('POST', '/v1/audits', { key: testKey, body: { domain: 'https://a.example.com', tier: 'team' } }),
      403,
      'tier_required',
      /requires the team tier/,
    );
    assertEnvelope(
      await api('POST', '/v1/audits', { key: liveKey, body: { domain: 'https://a.example.com', tier: 'enterprise' } }),
      403,
      'tier_required',
      /enterprise/,
    );
    assert.equal(await auditCount(workspaceId), 0);
  });

  it('gates webhooks and PDF reports to pro and up', async () => {
    const free = await newAccount('free');
    assertEnvelope(
      await api('POST', '/v1/webhooks', { key: free.testKey, body: { url: 'https://hooks.example.com' } }),
      403,
      'tier_required',
      /pro tier/,
    );
    assertEnvelope(await api('GET', '/v1/webhooks', { key: free.liveKey }), 403, 'tier_required', /pro tier/);
    assertEnvelope(await api('GET', '/v1/audits/aud_x/pdf', { key: free.liveKey }), 403, 'tier_required', /pro tier/);
    const pro = await newAccount('pro');
    assert.equal((await api('GET', '/v1/webhooks', { key: pro.liveKey })).status, 200);
    assertEnvelope(await api('GET', '/v1/audits/aud_x/pdf', { key: pro.liveKey }), 404, 'audit_not_found');
  });

  it('publishes health, readiness, the OpenAPI document and the error reference', async () => {
    assert.equal((await api('GET', '/healthz')).status, 200);
    const ready = await api('GET', '/v1/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    for (const component of ['api', 'temporal', 'database'])
      assert.equal(ready.body.components[component], 'up', component);
    const openapi = await api('GET', '/v1/openapi.json');
    assert.equal(openapi.body.openapi, '3.1.0');
    assert.ok(openapi.body.paths['/audits'].post);
    assert.ok(openapi.body.paths['/audits/{audit_id}/pdf'].get.responses['202']);
    assert.deepEqual(openapi.body.paths['/reports/{audit_id}.pdf'].get.security, []);
    assert.deepEqual(Object.keys(openapi.body.paths['/branding']).sort(), ['delete', 'get', 'put']);
    assert.equal(
      openapi.body.components.schemas.PutBrandingRequest.properties.primary_color.pattern,
      '^#[0-9a-fA-F]{6}$',
    );
    assert.equal(openapi.body.components.schemas.Audit.properties.version.const, 'v1');
    const docs = await api('GET', '/docs/errors');
    for (const code of [
      'invalid_domain',
      'tier_required',
      'audit_quota_exceeded',
      'method_not_allowed',
      'invalid_signature',
      'link_expired',
    ]) {
      assert.match(docs.text, new RegExp(`id="${code}"`));
    }
  });
});

describe('API edges: hardening', () => {
  it("answers a missing Host and an unknown Expect with the envelope (not Node's bare answers); 100-continue works", async () => {
    const { url } = await getStack();
    const { testKey, workspaceId } = await newAccount('pro');
    const noHost = await rawRequest(url, 'GET /v1/audits HTTP/1.1\r\n\r\n');
    assertEnvelope(noHost, 400, 'invalid_request', /^the Host header is required/);
    assert.equal(noHost.headers.get('x-ratelimit-limit'), '5', 'the free tier limit');
    assert.equal(noHost.headers.get('connection'), 'close');

    const body = '{"domain":"https://continue.example.com"}';
    const post = (expect: string, more = '') =>
      `POST /v1/audits HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: ${expect}\r\n${more}\r\n`;
    // No Connection: close sent: the server closes on its own.
    const refused = await rawRequest(url, post('100-foo') + body);
    assertEnvelope(refused, 417, 'invalid_request', /"100-foo" cannot be met/);
    assert.equal(refused.headers.get('x-ratelimit-limit'), '5');
    assert.equal(refused.headers.get('connection'), 'close');
    assert.equal(await auditCount(workspaceId), 0, 'the body sent with a refused expectation started nothing');

    // A client that waits for 100 Continue before sending its body still gets it, and its audit starts.
    const { interim, response } = await rawRequestWithContinue(
      url,
      post('100-continue', 'Connection: close\r\n'),
      body,
    );
    assert.equal(interim, 'HTTP/1.1 100 Continue\r\n\r\n');
    assert.equal(response.status, 202, response.text);
    assert.match(response.body.audit_id, /^aud_/);
    assert.equal(await auditCount(workspaceId), 1);

    // HTTP/1.0 needs no Host, and an Expect in it is ignored (RFC 9110 §10.1.1).
    const old = await rawRequest(
      url,
      `GET /v1/usage HTTP/1.0\r\nAuthorization: Bearer ${testKey}\r\nExpect: 100-foo\r\n\r\n`,
    );
    assert.equal(old.status, 200, old.text);
    assert.equal(old.body.tier, 'pro', old.text);
  });

  it('takes the Bearer scheme in any case', async () => {
    const { testKey } = await newAccount('pro');
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const response = await api('GET', '/v1/usage', { headers: { Authorization: `${scheme} ${testKey}` } });
      assert.equal(response.status, 200, `${scheme}: ${response.text}`);
    }
    assertEnvelope(
      await api('GET', '/v1/usage', { headers: { Authorization: `Token ${testKey}` } }),
      401,
      'invalid_api_key',
      /malformed|missing/,
    );
  });

  it('refuses another content type with 400 invalid_request naming it, storing nothing', async () => {
    const { testKey, workspaceId } = await newAccount('pro');
    for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
      const response = await api('POST', '/v1/audits', {
        key: testKey,
        rawBody: '{"domain":"https://a.example"}',
        headers: { 'Content-Type': type },
      });
      assertEnvelope(response, 400, 'invalid_request', new RegExp(`got "${type.split(';')[0]}`));
    }
    assert.equal(await auditCount(workspaceId), 0);
  });

  it('keeps a custom webhook secret byte for byte: printable ASCII of 16 to 128 characters', async () => {
    const { testKey, workspaceId } = await newAccount('pro');
    const { db } = await getStack();
    const secret = `${'!~'.repeat(8)}${String.fromCharCode(...Array.from({ length: 94 }, (_, i) => 0x21 + i))}`.slice(
      0,
      128,
    );
    assert.equal(secret.length, 110);
    const created = await api('POST', '/v1/webhooks', {
      key: testKey,
      body: { url: 'http://127.0.0.1:9/hook', secret },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.secret, secret);
    const row = await db('webhooks').where({ id: created.body.webhook_id }).first('secret');
    assert.equal(row.secret, secret);
    // What a receiver computes from the secret it configured is what the service signs with.
    const body = '{"event":"audit.completed"}';
    assert.equal(
      createHmac('sha256', row.secret).update(body).digest('hex'),
      createHmac('sha256', secret).update(body).digest('hex'),
    );
    for (const bad of [
      `${'a'.repeat(20)}\ud800`,
      `${'a'.repeat(20)}\u00e9`,
      'a'.repeat(15),
      'a'.repeat(129),
      `${'a'.repeat(10)} ${'b'.repeat(10)}`,
    ]) {
      assertEnvelope(
        await api('POST', '/v1/webhooks', { key: testKey, body: { url: 'http://127.0.0.1:9/hook', secret: bad } }),
        400,
        'invalid_request',
        /field secret/,
      );
    }
    const [{ count }] = await db('webhooks')
      .where({ workspace_id: workspaceId })
      .count<{ count: string }[]>('* as count');
    assert.equal(Number(count), 1);
  });

  it('sends Cache-Control: no-store with secrets, keys, every /v1 JSON answer and every error', async () => {
    const account = await newAccount('pro');
    const responses = [
      await api('POST', '/v1/webhooks', { key: account.testKey, body: { url: 'http://127.0.0.1:9/hook' } }),
      await api('GET', '/v1/webhooks', { key: account.testKey }),
      await api('GET', '/v1/usage', { key: account.liveKey }),
      await api('GET', '/v1/audits', { key: account.testKey }),
      await api('POST', '/v1/audits', { key: account.testKey, body: { domain: 'https://cache.example.com' } }),
      await api('GET', '/v1/branding', { key: account.testKey }),
      await api('GET', '/v1/audits/aud_nothing', { key: account.testKey }),
      await api('GET', '/v1/usage'),
      await api('GET', '/nowhere'),
    ];
    for (const response of responses)
      assert.equal(
        response.headers.get('cache-control'),
        'no-store',
        `${response.status} ${response.text.slice(0, 100)}`,
      );
  });

  it('answers 304 to If-None-Match on a report link, after checking the signature', async function () {
    this.timeout(90_000);
    const account = await newAccount('pro');
    const trigger = await api('POST', '/v1/audits', {
      key: account.testKey,
      body: { domain: 'https://etag.example.com' },
    });
    assert.equal(trigger.status, 202, trigger.text);
    assert.equal((await waitForAudit(account.testKey, trigger.body.audit_id)).body.status, 'completed');
    let link = await api('GET', `/v1/audits/${trigger.body.audit_id}/pdf`, { key: account.testKey });
    for (let i = 0; link.status === 202 && i < 60; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      link = await api('GET', `/v1/audits/${trigger.body.audit_id}/pdf`, { key: account.testKey });
    }
    assert.equal(link.status, 200, link.text);
    // The link is a credential.
    assert.equal(link.headers.get('cache-control'), 'no-store');

    const first = await fetch(link.body.url);
    const etag = first.headers.get('etag');
    assert.equal(first.status, 200);
    assert.match(etag ?? '', /^"[0-9a-f]{64}"$/);
    assert.ok((await first.arrayBuffer()).byteLength > 1000);

    for (const condition of [etag!, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await fetch(link.body.url, { headers: { 'If-None-Match': condition } });
      assert.equal(again.status, 304, condition);
      assert.equal(again.headers.get('etag'), etag);
      assert.equal((await again.arrayBuffer()).byteLength, 0);
    }
    const changed = await fetch(link.body.url, { headers: { 'If-None-Match': '"another-version"' } });
    assert.equal(changed.status, 200);
    await changed.arrayBuffer();
    // A forged link gets no 304, whatever it asks.
    const forged = new URL(link.body.url);
    forged.searchParams.set('signature', 'A'.repeat(43));
    const refused = await fetch(forged, { headers: { 'If-None-Match': etag! } });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_signature');
  });

  it('checks big logos off the event loop: another thread decodes them while /healthz is answered', async function () {
    this.timeout(120_000);
    const put = brandingPut((await newAccount('pro')).testKey);
    const logos = [1, 2, 3, 4].map(bigLogo);
    // Starts the logo check thread, so what is counted below is the checks.
    assert.equal((await put(pngBytes(16, 16, 6, 1))).status, 200);

    const mainThreadBefore = process.threadCpuUsage();
    const processBefore = process.cpuUsage();
    const puts = logos.map(put);
    let unanswered = puts.length;
    for (const answer of puts) void answer.then(() => unanswered--);
    // /healthz probes sent after the PUTs; those answered while a PUT is unanswered were served during the checks.
    const latencies: number[] = [];
    let answeredDuringChecks = 0;
    while (unanswered > 0) {
      const started = performance.now();
      assert.ok([200, 503].includes((await api('GET', '/healthz')).status));
      latencies.push(performance.now() - started);
      if (unanswered > 0) answeredDuringChecks++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const results = await Promise.all(puts);
    const mainThreadMs = cpuMs(process.threadCpuUsage(mainThreadBefore));
    const elsewhereMs = cpuMs(process.cpuUsage(processBefore)) - mainThreadMs;
    for (const result of results) assert.equal(result.status, 200, result.text);
    console.log(
      `      4 logo checks: CPU ${Math.round(elsewhereMs)} ms on other threads, ${Math.round(mainThreadMs)} ms on the event loop's; /healthz worst ${Math.round(Math.max(...latencies))} ms over ${latencies.length} probes`,
    );
    // CPU time counted by thread (not a clock): decoded on the event loop's thread, these logos make it the
    // busier one (measured 1460 ms against 555 ms on the other threads); decoded off it, it does a tenth of
    // what the others do (120 ms against 1600 ms). The probes alone cannot tell: pdfkit's decode yields
    // around its zlib steps, so /healthz gets answered between decodes either way.
    assert.ok(
      mainThreadMs < elsewhereMs,
      `the event loop's thread did ${Math.round(mainThreadMs)} ms of the checks' CPU, other threads ${Math.round(elsewhereMs)} ms`,
    );
    assert.ok(answeredDuringChecks >= 3, `${answeredDuringChecks} probes answered while the logos were checked`);
  });

  it('refuses logos that decode too big from their headers, without decoding them, PNG and JPEG', async function () {
    this.timeout(60_000);
    const put = brandingPut((await newAccount('pro')).testKey);
    // The logo from the report: 33 KB, grey + alpha, 4096×4096 = 32 MiB decoded.
    const greyAlpha = pngBytes(4096, 4096, 4, 0);
    assert.ok(greyAlpha.length < 40 * 1024, `${greyAlpha.length} bytes`);
    // Logos are decoded on the logo check thread only, one at a time: four big valid ones keep it busy.
    let answered = 0;
    const checked = [1, 2, 3, 4].map((shade) => put(bigLogo(shade)).finally(() => answered++));
    await Promise.race(checked); // the other three are now on the thread or waiting for it
    const refused = await put(greyAlpha);
    const stillChecked = checked.length - answered;
    assertEnvelope(
      refused,
      400,
      'invalid_request',
      /field logo must decode to at most 16 MiB .*got 32 MiB \(4096×4096, 2 channels\)/,
    );
    for (const result of await Promise.all(checked)) assert.equal(result.status, 200, result.text);
    // Refused by the API from the header it read, not in its turn on the thread: had it waited behind the
    // other three (to be decoded, or even to have its header read there), at most one would be unanswered.
    assert.ok(stillChecked >= 2, `refused when ${stillChecked} of the logos sent before it were still being checked`);
    assertEnvelope(
      await put(jpegHeader(20_000, 100)),
      400,
      'invalid_request',
      /field logo must be at most 4096×4096 pixels, got 20000×100/,
    );
    assertEnvelope(
      await put(jpegHeader(4000, 4000)),
      400,
      'invalid_request',
      /field logo must decode to at most 16 MiB/,
    );
    assertEnvelope(
      await put(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])),
      400,
      'invalid_request',
      /field logo could not be read as an image/,
    );
  });
});

describe('API edges: failed authentication', () => {
  it('limits failed authentications per address with 429, remembers unknown keys, and keeps valid keys working', async () => {
    const stack = await getStack();
    const instance = await startExtraApi({ config: { ...stack.config, authFailureLimit: 5 } });
    const account = await newAccount('pro');
    const other = await newAccount('pro');
    const lookups = countKeyLookups(stack);
    try {
      assert.equal((await api('GET', '/v1/usage', { key: account.testKey, baseUrl: instance.url })).status, 200);
      lookups.reset();

      const unknown = `svc_test_${'U'.repeat(32)}`;
      for (let i = 0; i < 3; i++)
        assertEnvelope(await api('GET', '/v1/usage', { key: unknown, baseUrl: instance.url }), 401, 'invalid_api_key');
      assert.equal(lookups.count(), 1, 'an unknown key is looked up once, then remembered');
      assertEnvelope(
        await api('GET', '/v1/usage', { key: 'svc_test_malformed', baseUrl: instance.url }),
        401,
        'invalid_api_key',
      );
      assertEnvelope(
        await api('GET', '/v1/usage', { key: `svc_live_${'V'.repeat(32)}`, baseUrl: instance.url }),
        401,
        'invalid_api_key',
      );
      assert.equal(lookups.count(), 2);

      const refused = await api('GET', '/v1/usage', { key: `svc_live_${'W'.repeat(32)}`, baseUrl: instance.url });
      assertEnvelope(refused, 429, 'too_many_failed_authentications', /more than 5 failed authentications/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(lookups.count(), 2, 'no lookup once the address is over the limit');

      // A key this instance knows as valid still works; others wait for the window.
      assert.equal((await api('GET', '/v1/usage', { key: account.testKey, baseUrl: instance.url })).status, 200);
      assertEnvelope(
        await api('GET', '/v1/usage', { key: other.testKey, baseUrl: instance.url }),
        429,
        'too_many_failed_authentications',
      );
      // Other instances keep their own count: the shared stack is unaffected.
      assert.equal((await api('GET', '/v1/usage', { key: other.testKey })).status, 200);
    } finally {
      lookups.stop();
    }
  });

  it('bounds the memory of unknown keys without pushing out valid identities', async () => {
    const stack = await getStack();
    const account = await newAccount('pro');
    const authenticator = new KeyAuthenticator(stack.db, stack.clock, { maxUnknownKeys: 50 });
    const lookups = countKeyLookups(stack);
    try {
      assert.ok(await authenticator.authenticate(account.testKey));
      const flood = Array.from({ length: 200 }, (_, i) => `svc_test_${String(i).padStart(32, 'F')}`);
      for (const key of flood) assert.equal(await authenticator.authenticate(key), null);
      lookups.reset();
      assert.equal((await authenticator.authenticate(account.testKey))?.workspaceId, account.workspaceId);
      assert.equal(await authenticator.authenticate(flood[199]), null);
      assert.equal(lookups.count(), 0, 'the valid key and the newest unknown key are answered from memory');
      assert.equal(await authenticator.authenticate(flood[0]), null);
      assert.equal(lookups.count(), 1, 'the oldest unknown key was forgotten: the cache is bounded');
    } finally {
      lookups.stop();
      await authenticator.close();
    }
  });
});

/** Counts the key lookups (the api_keys query by hash) the shared database connection pool runs. */
function countKeyLookups(stack: Awaited<ReturnType<typeof getStack>>) {
  let count = 0;
  const onQuery = (query: { sql: string }) => {
    if (query.sql.includes('secret_hash')) count++;
  };
  stack.db.on('query', onQuery);
  return {
    count: () => count,
    reset: () => (count = 0),
    stop: () => stack.db.removeListener('query', onQuery),
  };
}

/** PUT /v1/branding with `logo` and otherwise fixed fields, as the key's workspace. */
function brandingPut(key: string) {
  return (logo: Buffer) =>
    api('PUT', '/v1/branding', {
      key,
      body: { display_name: 'Acme', primary_color: '#123456', logo: logo.toString('base64') },
    });
}

/**
 * 2048×2048 RGBA: 16 MiB once decoded (the most accepted), under 40 KiB as a file. Its rows are
 * Paeth-filtered, so decoding takes every byte through the predictor: far more CPU than the request.
 */
function bigLogo(shade: number): Buffer {
  const logo = pngBytes(2048, 2048, 6, shade * 40, 4);
  assert.ok(logo.length < 40 * 1024, `${logo.length} bytes`);
  return logo;
}

/** User plus system CPU time, in milliseconds. */
function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

/**
 * A PNG of one colour, tiny as a file, `width × height × channels` bytes once decoded: flat with rows
 * unfiltered (`filter` 0), a pattern with every row Paeth-filtered (4).
 */
function pngBytes(width: number, height: number, colorType: 4 | 6, shade: number, filter: 0 | 4 = 0): Buffer {
  const channels = colorType === 6 ? 4 : 2;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = colorType;
  const raw = Buffer.alloc(height * (1 + width * channels), shade);
  for (let y = 0; y < height; y++) raw[y * (1 + width * channels)] = filter;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A JPEG start and frame header (SOF0) claiming width×height in RGB, without image data. */
function jpegHeader(width: number, height: number): Buffer {
  const frame = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), frame, Buffer.from([0xff, 0xd9])]);
}
