import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import {
  checkReportLink,
  parseLinkParams,
  REPORT_LINK_TTL_MS,
  reportLinkUrl,
  signReportLink,
  type LinkParams,
  type SigningKey,
} from '../../src/reports/report-link';

const keyA: SigningKey = { id: 'rsk_A', secret: randomBytes(32) };
const keyB: SigningKey = { id: 'rsk_B', secret: randomBytes(32) };
const signedAt = new Date('2026-11-21T10:00:00.000Z');
const audit = 'aud_01JLINK0000000000000000000';

function linkFrom(url: string): LinkParams {
  const u = new URL(url);
  const id = /\/v1\/reports\/(.+)\.pdf$/.exec(u.pathname)![1]!;
  const params = parseLinkParams(id, Object.fromEntries(u.searchParams));
  assert.ok(params);
  return params;
}

describe('signed report links', () => {
  const { params, expiresAt } = signReportLink(keyA, audit, signedAt);
  const url = reportLinkUrl('https://api.example.com', params);

  it('expire 60 minutes after signing and name the audit and the key', () => {
    assert.equal(REPORT_LINK_TTL_MS, 3600_000);
    assert.equal(expiresAt.toISOString(), '2026-11-21T11:00:00.000Z');
    assert.match(
      url,
      new RegExp(
        `^https://api\\.example\\.com/v1/reports/${audit}\\.pdf\\?expires=\\d+&key=rsk_A&signature=[A-Za-z0-9_-]{43}$`,
      ),
    );
    assert.equal(checkReportLink(linkFrom(url), keyA, signedAt), null);
  });

  it('are valid until the expiry and expired from then on (injected clock)', () => {
    assert.equal(checkReportLink(params, keyA, new Date(expiresAt.getTime() - 1)), null);
    assert.equal(checkReportLink(params, keyA, expiresAt), 'link_expired');
    assert.equal(checkReportLink(params, keyA, new Date(expiresAt.getTime() + 86_400_000)), 'link_expired');
  });

  it('reject a changed signature, expiry or audit, and a link made for another audit', () => {
    const flipped = params.signature[0] === 'A' ? `B${params.signature.slice(1)}` : `A${params.signature.slice(1)}`;
    assert.equal(checkReportLink({ ...params, signature: flipped }, keyA, signedAt), 'invalid_signature');
    // Extending the expiry to keep a link alive breaks the signature.
    assert.equal(checkReportLink({ ...params, expires: params.expires + 3600 }, keyA, signedAt), 'invalid_signature');
    assert.equal(
      checkReportLink({ ...params, auditId: 'aud_01JOTHER000000000000000000' }, keyA, signedAt),
      'invalid_signature',
    );
    // A tampered link that is also past its expiry is reported as tampered, not as expired.
    assert.equal(
      checkReportLink({ ...params, signature: flipped }, keyA, new Date(expiresAt.getTime() + 1)),
      'invalid_signature',
    );
  });

  it('reject a signature by another key, or by a key the service does not know (foreign)', () => {
    assert.equal(checkReportLink({ ...params, keyId: keyB.id }, keyB, signedAt), 'invalid_signature');
    assert.equal(checkReportLink(params, undefined, signedAt), 'invalid_signature');
  });

  it('keep verifying with the key that signed them after a rotation, while new links use the new key', () => {
    const keyring = new Map([keyA, keyB].map((k) => [k.id, k]));
    const later = new Date(signedAt.getTime() + 10 * 60_000);
    const fresh = signReportLink(keyB, audit, later).params;
    assert.equal(fresh.keyId, 'rsk_B');
    assert.notEqual(fresh.signature, params.signature);
    assert.equal(checkReportLink(params, keyring.get(params.keyId), later), null);
    assert.equal(checkReportLink(fresh, keyring.get(fresh.keyId), later), null);
  });

  it('answer invalid_signature, never throw, for a signature of the wrong length', () => {
    for (const signature of ['', 'AAAA', params.signature.slice(0, 42), `${params.signature}AAAA`, '!!!!']) {
      assert.equal(
        checkReportLink({ ...params, signature }, keyA, signedAt),
        'invalid_signature',
        JSON.stringify(signature),
      );
    }
  });

  it('refuse every other last character, even those that decode to the same bytes', () => {
    // The 43rd character carries 4 bits: a byte comparison would take 3 of these 63 as the signature.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sameBytes = [...alphabet].filter(
      (c) =>
        c !== params.signature.at(-1) &&
        Buffer.from(params.signature.slice(0, 42) + c, 'base64url').equals(Buffer.from(params.signature, 'base64url')),
    );
    assert.equal(sameBytes.length, 3, 'the decoder does fold four last characters into one');
    for (const c of alphabet.replace(params.signature.at(-1)!, ''))
      assert.equal(
        checkReportLink({ ...params, signature: params.signature.slice(0, 42) + c }, keyA, signedAt),
        'invalid_signature',
        c,
      );
  });

  it('sign the audit id and expiry with HMAC-SHA256, base64url, under a versioned label', () => {
    const expected = createHmac('sha256', keyA.secret)
      .update(`report-link.v1\n${audit}\n${params.expires}`)
      .digest('base64url');
    assert.equal(params.signature, expected);
    assert.equal(params.expires, Math.floor(signedAt.getTime() / 1000) + 3600);
    assert.equal(params.auditId, audit);
    // Expiry in whole seconds, rounded down: a sub-second signing time never extends the link.
    const odd = signReportLink(keyA, audit, new Date(signedAt.getTime() + 999));
    assert.equal(odd.params.expires, params.expires);
    assert.equal(odd.expiresAt.getTime(), params.expires * 1000);
  });

  it('escape the audit id in the URL path', () => {
    const url = reportLinkUrl('http://127.0.0.1:3000', { ...params, auditId: 'a/b c' });
    assert.match(url, /^http:\/\/127\.0\.0\.1:3000\/v1\/reports\/a%2Fb%20c\.pdf\?/);
  });

  it('accept parameters at their length limits and refuse one character more', () => {
    const good = { expires: String(params.expires), key: params.keyId, signature: params.signature };
    assert.deepEqual(parseLinkParams(audit, good), params);
    assert.equal(parseLinkParams(audit, { ...good, expires: '9'.repeat(12) })?.expires, 999_999_999_999);
    assert.equal(parseLinkParams(audit, { ...good, expires: '9'.repeat(13) }), null);
    assert.equal(parseLinkParams(audit, { ...good, expires: '' }), null);
    assert.equal(parseLinkParams(audit, { ...good, key: 'k'.repeat(64) })?.keyId, 'k'.repeat(64));
    assert.equal(parseLinkParams(audit, { ...good, key: 'k'.repeat(65) }), null);
    assert.equal(parseLinkParams(audit, { ...good, key: '' }), null);
    assert.equal(parseLinkParams(audit, { ...good, key: 'x-rsk_A' })?.keyId, 'x-rsk_A');
    assert.equal(parseLinkParams(audit, { ...good, signature: `${params.signature}A` }), null);
    assert.equal(
      parseLinkParams(audit, { ...good, signature: `-_${params.signature.slice(2)}` })?.signature,
      `-_${params.signature.slice(2)}`,
    );
    assert.equal(parseLinkParams(audit, { ...good, signature: `+/${params.signature.slice(2)}` }), null);
    for (const field of ['expires', 'key', 'signature'] as const) {
      assert.equal(parseLinkParams(audit, { ...good, [field]: ` ${good[field]}` }), null, `leading space in ${field}`);
      assert.equal(parseLinkParams(audit, { ...good, [field]: `${good[field]} ` }), null, `trailing space in ${field}`);
      assert.equal(parseLinkParams(audit, { ...good, [field]: 1 }), null, `${field} as a number`);
      assert.equal(parseLinkParams(audit, { ...good, [field]: [good[field]] }), null, `${field} repeated in the query`);
    }
  });

  it('refuse malformed parameters before any key lookup', () => {
    const good = { expires: String(params.expires), key: params.keyId, signature: params.signature };
    assert.ok(parseLinkParams(audit, good));
    for (const bad of [
      {},
      { ...good, expires: undefined },
      { ...good, expires: '12abc' },
      { ...good, expires: ['1', '2'] },
      { ...good, key: 'rsk A' },
      { ...good, signature: params.signature.slice(1) },
      { ...good, signature: `${params.signature.slice(1)}=` },
    ]) {
      assert.equal(parseLinkParams(audit, bad), null, JSON.stringify(bad));
    }
  });
});
