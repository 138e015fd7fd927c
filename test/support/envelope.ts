import assert from 'node:assert/strict';

/** What every error answer of the API carries: the envelope, the request id and the rate-limit headers. */
export function assertEnvelope(
  response: { status: number; headers: { get(name: string): string | null }; body: any; text: string },
  status: number,
  code: string,
  message?: RegExp,
): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.body?.error?.code, code, response.text);
  assert.equal(typeof response.body.error.message, 'string');
  if (message) assert.match(response.body.error.message, message);
  assert.match(response.body.error.request_id, /^req_[0-9A-Za-z]{20}$/);
  assert.equal(response.body.error.request_id, response.headers.get('x-request-id'));
  assert.match(response.body.error.docs_url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/docs/errors#${code}$`));
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.match(response.headers.get(header) ?? '', /^\d+$/, `${header} missing on ${status}`);
  }
}
