import assert from 'node:assert/strict';
import { api, getStack, newAccount, type TestAccount } from '../support/stack';
import { assertEnvelope } from '../support/envelope';
import { rawRequest } from '../support/raw-http';

/**
 * The bad-input corpus: every case is sent over real HTTP (raw sockets where fetch would refuse
 * to send it) and must get a 4xx with the error envelope, X-Request-Id and the rate-limit
 * headers, never a 5xx, and store nothing. Add a case by adding a line.
 */
interface Case {
  name: string;
  method: string;
  /** `{webhook}` is replaced by a webhook of the corpus workspace. */
  path: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  /** Which credential to send: the workspace's test key (default) or none. */
  auth?: 'test' | 'none';
  status: number;
  code: string;
  message?: RegExp;
}

interface RawCase {
  name: string;
  request: string;
  status: number;
  /** invalid_request unless said otherwise. */
  code?: string;
  message: RegExp;
}

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';
const TIME = '2026-01-01T00:00:00.000Z';
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const HOOK = 'http://127.0.0.1:9/hook';
const controlChars = /must not contain control characters/;

const LISTS = ['/v1/audits', '/v1/webhooks', '/v1/webhooks/{webhook}/deliveries', '/v1/notification-channels'];

const cases: Case[] = [
  // Ids have shapes: anything else names nothing, before any query.
  { name: 'NUL as audit id', method: 'GET', path: '/v1/audits/%00', status: 404, code: 'audit_not_found' },
  {
    name: 'NUL inside an audit id',
    method: 'GET',
    path: '/v1/audits/aud_01J%00X',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'control character in audit id (findings)',
    method: 'GET',
    path: '/v1/audits/aud_%01/findings',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'NUL in audit id (pdf)',
    method: 'GET',
    path: '/v1/audits/aud_%00/pdf',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: '5000-character audit id',
    method: 'GET',
    path: `/v1/audits/aud_${'a'.repeat(5000)}`,
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'audit id of another alphabet',
    method: 'GET',
    path: '/v1/audits/aud_%C3%A9t%C3%A9',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'malformed percent-encoding in audit id',
    method: 'GET',
    path: '/v1/audits/aud_%E0%A4%A',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'a lone percent sign as audit id',
    method: 'GET',
    path: '/v1/audits/%25%',
    status: 404,
    code: 'audit_not_found',
  },
  {
    name: 'invalid percent-encoding as webhook id',
    method: 'GET',
    path: '/v1/webhooks/%ZZ/deliveries',
    status: 404,
    code: 'webhook_not_found',
  },
  {
    name: 'NUL in webhook id (delete)',
    method: 'DELETE',
    path: '/v1/webhooks/wh_%00',
    status: 404,
    code: 'webhook_not_found',
  },
  {
    name: 'NUL as webhook id (deliveries)',
    method: 'GET',
    path: '/v1/webhooks/%00/deliveries',
    status: 404,
    code: 'webhook_not_found',
  },
  {
    name: 'NUL in webhook id (retry)',
    method: 'POST',
    path: '/v1/webhooks/wh_%00/deliveries/dlv_x/retry',
    status: 404,
    code: 'webhook_not_found',
  },
  {
    name: 'NUL in delivery id (retry)',
    method: 'POST',
    path: '/v1/webhooks/{webhook}/deliveries/dlv_%00/retry',
    status: 404,
    code: 'delivery_not_found',
  },
  {
    name: 'NUL in a report link',
    method: 'GET',
    path: `/v1/reports/aud_%00.pdf?expires=1&key=rsk_x&signature=${'A'.repeat(43)}`,
    auth: 'none',
    status: 403,
    code: 'invalid_signature',
  },
  {
    name: 'NUL in report link parameters',
    method: 'GET',
    path: `/v1/reports/aud_01J.pdf?expires=1%00&key=rsk_%00&signature=%00`,
    auth: 'none',
    status: 403,
    code: 'invalid_signature',
  },

  // Filters: control characters are refused naming the parameter.
  {
    name: 'NUL as domain filter',
    method: 'GET',
    path: '/v1/audits?domain=%00',
    status: 400,
    code: 'invalid_request',
    message: /query parameter domain must not contain control characters/,
  },
  {
    name: 'NUL after a domain filter origin',
    method: 'GET',
    path: '/v1/audits?domain=https://a.example%00',
    status: 400,
    code: 'invalid_request',
    message: /query parameter domain must not/,
  },
  {
    name: 'control character in a bare host filter',
    method: 'GET',
    path: '/v1/audits?domain=a.example%1F',
    status: 400,
    code: 'invalid_request',
    message: controlChars,
  },
  {
    name: 'NUL as status filter',
    method: 'GET',
    path: '/v1/audits?status=%00',
    status: 400,
    code: 'invalid_request',
    message: /query parameter status/,
  },
  {
    name: 'NUL in completed_after',
    method: 'GET',
    path: '/v1/audits?completed_after=2026-01-01T00:00:00Z%00',
    status: 400,
    code: 'invalid_request',
    message: /completed_after must not contain control/,
  },
  {
    name: 'NUL in a repeated parameter',
    method: 'GET',
    path: '/v1/audits?status=queued&status=%00',
    status: 400,
    code: 'invalid_request',
    message: /query parameter status must not contain control/,
  },
  {
    name: '3000-character domain filter',
    method: 'GET',
    path: `/v1/audits?domain=${'a'.repeat(3000)}`,
    status: 400,
    code: 'invalid_request',
    message: /domain/,
  },

  // Timestamps Postgres cannot hold.
  {
    name: 'completed_after in year 0000',
    method: 'GET',
    path: '/v1/audits?completed_after=0000-01-01T00:00:00Z',
    status: 400,
    code: 'invalid_request',
    message: /completed_after must be between 0001/,
  },
  {
    name: 'completed_before in year 0000',
    method: 'GET',
    path: '/v1/audits?completed_before=0000-12-31T23:59:59Z',
    status: 400,
    code: 'invalid_request',
    message: /completed_before must be between/,
  },
  {
    name: 'completed_after as a number',
    method: 'GET',
    path: '/v1/audits?completed_after=12345',
    status: 400,
    code: 'invalid_request',
    message: /RFC 3339/,
  },

  // Bodies: control characters and broken Unicode, named by field; lengths that fit what is stored.
  ...(
    [
      ['NUL in a channel target', { type: 'slack', target: `${HOOK}${NUL}` }, /field target must not contain control/],
      ['CRLF in an e-mail target', { type: 'email', target: 'a@example.com\r\nBcc: b@example.com' }, /field target/],
      ['lone surrogate in a channel target', { type: 'email', target: `a${LONE_SURROGATE}@example.com` }, /Unicode/],
      [
        'a channel event in another case',
        { type: 'email', target: 'a@example.com', events: ['Audit.Failed'] },
        /events/,
      ],
    ] as const
  ).map(([name, body, message]): Case => ({
    name,
    method: 'POST',
    path: '/v1/notification-channels',
    body: { events: ['audit.failed'], ...body },
    status: 400,
    code: 'invalid_request',
    message,
  })),
  {
    name: 'NUL as notification channel id',
    method: 'DELETE',
    path: '/v1/notification-channels/nch_%00',
    status: 404,
    code: 'notification_channel_not_found',
  },
  {
    name: 'NUL in domain',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: `https://a.example${NUL}` },
    status: 400,
    code: 'invalid_request',
    message: /field domain must not contain control characters/,
  },
  {
    name: 'bell in domain',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: 'https://exa\u0007mple.com' },
    status: 400,
    code: 'invalid_request',
    message: /field domain/,
  },
  {
    name: 'lone surrogate in domain',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: `https://a${LONE_SURROGATE}.example` },
    status: 400,
    code: 'invalid_request',
    message: /field domain must be valid Unicode/,
  },
  {
    name: 'NUL in webhook_url',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: 'https://a.example', webhook_url: `${HOOK}${NUL}` },
    status: 400,
    code: 'invalid_request',
    message: /field webhook_url must not contain control/,
  },
  {
    name: 'webhook_url over 2048 characters',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: 'https://a.example', webhook_url: `${HOOK}/${'x'.repeat(2100)}` },
    status: 400,
    code: 'invalid_request',
    message: /webhook_url/,
  },
  {
    name: 'domain over 2048 characters',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: `https://${'a'.repeat(3000)}.com` },
    status: 400,
    code: 'invalid_request',
    message: /field domain/,
  },
  {
    name: 'host of 254 characters',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: `https://${host(254)}` },
    status: 400,
    code: 'invalid_domain',
  },
  {
    name: 'label of 64 characters',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: `https://${'a'.repeat(64)}.com` },
    status: 400,
    code: 'invalid_domain',
  },
  {
    name: 'Idempotency-Key over 255 characters',
    method: 'POST',
    path: '/v1/audits',
    body: { domain: 'https://a.example' },
    headers: { 'Idempotency-Key': 'k'.repeat(256) },
    status: 400,
    code: 'invalid_request',
    message: /Idempotency-Key/,
  },
  {
    name: 'a JSON string as body',
    method: 'POST',
    path: '/v1/audits',
    rawBody: '"https://a.example"',
    headers: { 'Content-Type': 'application/json' },
    status: 400,
    code: 'invalid_request',
    message: /body must be a JSON object/,
  },
  {
    name: 'null as body',
    method: 'POST',
    path: '/v1/audits',
    rawBody: 'null',
    headers: { 'Content-Type': 'application/json' },
    status: 400,
    code: 'invalid_request',
    message: /body must be a JSON object/,
  },
  {
    name: 'arrays nested 30000 deep',
    method: 'POST',
    path: '/v1/webhooks',
    rawBody: `{"url":"${HOOK}","events":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
    headers: { 'Content-Type': 'application/json' },
    status: 400,
    code: 'invalid_request',
    message: /field events/,
  },
  {
    name: 'objects nested 10000 deep',
    method: 'PUT',
    path: '/v1/branding',
    rawBody: `{"display_name":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)},"primary_color":"#000000"}`,
    headers: { 'Content-Type': 'application/json' },
    status: 400,
    code: 'invalid_request',
    message: /display_name/,
  },
  {
    name: 'text/plain body',
    method: 'POST',
    path: '/v1/audits',
    rawBody: '{"domain":"https://a.example"}',
    headers: { 'Content-Type': 'text/plain' },
    status: 400,
    code: 'invalid_request',
    message: /Content-Type must be application\/json, got "text\/plain"/,
  },
  {
    name: 'form body',
    method: 'POST',
    path: '/v1/webhooks',
    rawBody: 'url=x',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    status: 400,
    code: 'invalid_request',
    message: /got "application\/x-www-form-urlencoded"/,
  },
  {
    name: 'NUL in webhook url',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: `${HOOK}${NUL}` },
    status: 400,
    code: 'invalid_request',
    message: /field url must not contain control/,
  },
  {
    name: 'tab in webhook url',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: 'http://127.0.0.1:9/ho\tok' },
    status: 400,
    code: 'invalid_request',
    message: /field url/,
  },
  {
    name: 'NUL in an event name',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, events: [`audit.completed${NUL}`] },
    status: 400,
    code: 'invalid_request',
    message: /field events\.0 must not contain control/,
  },
  {
    name: 'NUL in webhook secret',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: `${'s'.repeat(20)}${NUL}` },
    status: 400,
    code: 'invalid_request',
    message: /field secret must not contain control/,
  },
  {
    name: 'lone surrogate in webhook secret',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: `${'s'.repeat(20)}${LONE_SURROGATE}` },
    status: 400,
    code: 'invalid_request',
    message: /field secret must be valid Unicode/,
  },
  {
    name: 'webhook secret with spaces',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: 'correct horse battery staple' },
    status: 400,
    code: 'invalid_request',
    message: /field secret must match pattern .*printable ASCII/,
  },
  {
    name: 'non-ASCII webhook secret',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: 'é'.repeat(20) },
    status: 400,
    code: 'invalid_request',
    message: /field secret must match pattern/,
  },
  {
    name: 'webhook secret of 15 characters',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: 's'.repeat(15) },
    status: 400,
    code: 'invalid_request',
    message: /field secret/,
  },
  {
    name: 'webhook secret of 129 characters',
    method: 'POST',
    path: '/v1/webhooks',
    body: { url: HOOK, secret: 's'.repeat(129) },
    status: 400,
    code: 'invalid_request',
    message: /field secret/,
  },
  {
    name: 'NUL in branding name',
    method: 'PUT',
    path: '/v1/branding',
    body: { display_name: `Acme${NUL}`, primary_color: '#000000' },
    status: 400,
    code: 'invalid_request',
    message: /field display_name must not contain control/,
  },
  {
    name: 'C1 control in branding footer',
    method: 'PUT',
    path: '/v1/branding',
    body: { display_name: 'Acme', primary_color: '#000000', footer_text: 'a\u0085b' },
    status: 400,
    code: 'invalid_request',
    message: /field footer_text/,
  },
  {
    name: 'lone surrogate in branding contact',
    method: 'PUT',
    path: '/v1/branding',
    body: { display_name: 'Acme', primary_color: '#000000', contact_line: LONE_SURROGATE },
    status: 400,
    code: 'invalid_request',
    message: /field contact_line must be valid Unicode/,
  },

  // Credentials.
  {
    name: 'scheme without a key',
    method: 'GET',
    path: '/v1/usage',
    headers: { Authorization: 'Bearer' },
    auth: 'none',
    status: 401,
    code: 'invalid_api_key',
  },
  {
    name: 'key followed by garbage',
    method: 'GET',
    path: '/v1/usage',
    headers: { Authorization: `Bearer svc_test_${'A'.repeat(32)} extra` },
    auth: 'none',
    status: 401,
    code: 'invalid_api_key',
  },

  // limit is a plain integer 1–200, and cursors are what a previous page handed out, on every list.
  ...LISTS.flatMap((list): Case[] => [
    ...['Infinity', '-Infinity', '1e2', '0x10', '5.0', '-1', '+5', '%205', ''].map((limit): Case => ({
      name: `limit=${limit} on ${list}`,
      method: 'GET',
      path: `${list}?limit=${limit}`,
      status: 400,
      code: 'invalid_request',
      message: /query parameter limit must be a whole number/,
    })),
    {
      name: `limit=0 on ${list}`,
      method: 'GET',
      path: `${list}?limit=0`,
      status: 400,
      code: 'invalid_request',
      message: /limit must be >= 1/,
    },
    {
      name: `limit=201 on ${list}`,
      method: 'GET',
      path: `${list}?limit=201`,
      status: 400,
      code: 'invalid_request',
      message: /limit must be <= 200/,
    },
    {
      name: `limit of 30 digits on ${list}`,
      method: 'GET',
      path: `${list}?limit=${'9'.repeat(30)}`,
      status: 400,
      code: 'invalid_request',
      message: /limit/,
    },
    ...[
      ['NUL', '%00'],
      ['a NUL id', cursorOf([TIME, `aud_${NUL}`])],
      ['timestamp "12345"', cursorOf(['12345', 'aud_01JX'])],
      ['year 0000', cursorOf(['0000-01-01T00:00:00.000Z', 'aud_01JX'])],
      ['one element', cursorOf([TIME])],
      ['an object', cursorOf({ created_at: TIME, id: 'aud_01JX' })],
      ['not base64url', 'not+base64/'],
      ['600 characters', 'A'.repeat(600)],
      ['an id of another kind', cursorOf([TIME, list === '/v1/audits' ? 'wh_01JX' : 'aud_01JX'])],
    ].map(([what, cursor]): Case => ({
      name: `cursor with ${what} on ${list}`,
      method: 'GET',
      path: `${list}?cursor=${cursor}`,
      status: 400,
      code: 'invalid_request',
      message: /cursor/,
    })),
  ]),
];

// Requests Node's HTTP parser refuses before the application sees them.
const rawCases: RawCase[] = [
  {
    name: 'control byte in a header value',
    request: 'GET /v1/usage HTTP/1.1\r\nHost: a\r\nX-Note: a\x01b\r\n\r\n',
    status: 400,
    message: /control characters/,
  },
  {
    name: 'NUL in Idempotency-Key',
    request: 'POST /v1/audits HTTP/1.1\r\nHost: a\r\nIdempotency-Key: a\x00b\r\nContent-Length: 0\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'header block over 16 KiB',
    request: `GET /v1/usage HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    status: 431,
    message: /larger than 16 KiB/,
  },
  {
    name: 'many headers over 16 KiB',
    request: `GET /v1/usage HTTP/1.1\r\nHost: a\r\n${Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'v'.repeat(40)}\r\n`).join('')}\r\n`,
    status: 431,
    message: /larger than 16 KiB/,
  },
  {
    name: 'Content-Length that is not a number',
    request: 'POST /v1/audits HTTP/1.1\r\nHost: a\r\nContent-Length: abc\r\n\r\n',
    status: 400,
    message: /Content-Length/,
  },
  {
    name: 'two different Content-Lengths',
    request: 'POST /v1/audits HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'Content-Length with chunked encoding',
    request: 'POST /v1/audits HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  { name: 'unknown method', request: 'FROB /v1/usage HTTP/1.1\r\nHost: a\r\n\r\n', status: 400, message: /method/ },
  { name: 'request line without target', request: 'GET\r\n\r\n', status: 400, message: /not valid HTTP/ },
  {
    name: 'space inside the target',
    request: 'GET /v1/us age HTTP/1.1\r\nHost: a\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'NUL in the target',
    request: 'GET /v1/audits/\x00 HTTP/1.1\r\nHost: a\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'unknown HTTP version',
    request: 'GET /v1/usage HTTP/7.3\r\nHost: a\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  {
    name: 'CONNECT',
    request: 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
    status: 405,
    code: 'method_not_allowed',
    message: /CONNECT is not allowed/,
  },
  {
    name: 'header line without a colon',
    request: 'GET /v1/usage HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n',
    status: 400,
    message: /not valid HTTP/,
  },
  // Two answers Node's server writes itself unless told otherwise (src/api/middleware/http-preconditions.ts).
  { name: 'HTTP/1.1 without Host', request: 'GET /v1/audits HTTP/1.1\r\n\r\n', status: 400, message: /Host header/ },
  {
    name: 'an Expect other than 100-continue',
    request: 'POST /v1/audits HTTP/1.1\r\nHost: x\r\nExpect: 100-foo\r\nContent-Length: 2\r\n\r\n{}',
    status: 417,
    message: /"100-foo" cannot be met/,
  },
];

/** A host name of exactly `length` characters: labels of at most 63, none empty, ending in .com. */
function host(length: number): string {
  let name = 'com';
  while (name.length < length) {
    let size = Math.min(63, length - name.length - 1);
    // Never leave room for just a dot.
    if (length - name.length - (size + 1) === 1) size -= 1;
    name = `${'a'.repeat(size)}.${name}`;
  }
  return name;
}

async function storedRows(account: TestAccount): Promise<Record<string, number>> {
  const { db } = await getStack();
  const count = async (table: string, where: Record<string, string>) =>
    Number((await db(table).where(where).count<{ count: string }[]>('* as count'))[0].count);
  return {
    audits: await count('audits', { workspace_id: account.workspaceId }),
    webhooks: await count('webhooks', { workspace_id: account.workspaceId }),
    branding: await count('workspace_branding', { workspace_id: account.workspaceId }),
    idempotency: await count('idempotency_keys', { workspace_id: account.workspaceId }),
    channels: await count('notification_channels', { workspace_id: account.workspaceId }),
  };
}

describe('bad input: the corpus', function () {
  this.timeout(120_000);
  let account: TestAccount;
  let webhookId: string;
  let baseline: Record<string, number>;

  before(async () => {
    account = await newAccount('pro');
    const webhook = await api('POST', '/v1/webhooks', { key: account.testKey, body: { url: HOOK } });
    assert.equal(webhook.status, 201, webhook.text);
    webhookId = webhook.body.webhook_id;
    baseline = await storedRows(account);
  });

  it(`answers each of ${cases.length} bad requests with a 4xx envelope and the rate-limit headers`, async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const headers = { ...c.headers };
      if (c.auth !== 'none') headers.Authorization = `Bearer ${account.testKey}`;
      const response = await api(c.method, c.path.replace('{webhook}', webhookId), {
        body: c.body,
        rawBody: c.rawBody,
        headers,
      });
      try {
        assert.ok(response.status >= 400 && response.status < 500, `status ${response.status}`);
        assertEnvelope(response, c.status, c.code, c.message);
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} — ${response.text.slice(0, 300)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it(`answers each of ${rawCases.length} requests the HTTP parser refuses with the envelope`, async () => {
    const { url } = await getStack();
    const failures: string[] = [];
    for (const c of rawCases) {
      const response = await rawRequest(url, c.request);
      try {
        assertEnvelope(response, c.status, c.code ?? 'invalid_request', c.message);
        assert.equal(response.headers.get('x-ratelimit-limit'), '5', 'the free tier limit');
        assert.equal(response.headers.get('cache-control'), 'no-store');
      } catch (err) {
        failures.push(`${c.name}: ${(err as Error).message.split('\n')[0]} — ${response.text.slice(0, 300)}`);
      }
    }
    assert.deepEqual(failures, []);
    // The service still answers afterwards.
    assert.equal((await api('GET', '/v1/usage', { key: account.testKey })).status, 200);
  });

  it('stored nothing', async () => {
    assert.deepEqual(await storedRows(account), baseline);
  });
});

describe('bad input: the longest accepted values fit what is stored', () => {
  it('accepts hosts of 245 to 253 characters and a long webhook_url, and stores them whole', async () => {
    const account = await newAccount('pro');
    const { db } = await getStack();
    for (const length of [245, 250, 253]) {
      const domain = `https://${host(length)}:8443`;
      assert.equal(host(length).length, length);
      const webhookUrl = `${HOOK}/${'p'.repeat(1500)}?q=${'é'.repeat(100)}`;
      const response = await api('POST', '/v1/audits', {
        key: account.testKey,
        body: { domain, webhook_url: webhookUrl },
      });
      assert.equal(response.status, 202, response.text);
      const row = await db('audits').where({ id: response.body.audit_id }).first('domain', 'webhook_url');
      assert.equal(row.domain, domain);
      assert.equal(row.webhook_url, new URL(webhookUrl).toString());
      assert.ok(row.webhook_url.length > 2048, 'percent-encoding made it longer than sent');
      const listed = await api('GET', `/v1/audits?domain=${encodeURIComponent(domain)}`, { key: account.testKey });
      assert.deepEqual(
        listed.body.data.map((a: { audit_id: string }) => a.audit_id),
        [response.body.audit_id],
      );
    }
  });

  it('accepts the edges of limit and timestamps', async () => {
    const { testKey } = await newAccount('pro');
    for (const query of [
      'limit=1',
      'limit=200',
      'limit=007',
      'completed_after=0001-01-01T00:00:00Z',
      'completed_before=9999-12-31T23:59:59Z',
      'completed_after=2026-01-01T00:00:00%2B23:59',
    ]) {
      const response = await api('GET', `/v1/audits?${query}`, { key: testKey });
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      assert.deepEqual(response.body.data, []);
      assert.equal(response.body.has_more, false);
    }
  });
});
