import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { isRefusedDatum } from '../../src/db/refused-datum';
import { storableJson, storableText } from '../../src/text/storable';
import { responseExcerpt } from '../../src/webhooks/excerpt';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

describe('bytes from outside, made storable', () => {
  it('replaces U+0000 and lone surrogates by U+FFFD, and keeps surrogate pairs', () => {
    assert.equal(storableText('a\u0000b'), 'a\uFFFDb');
    assert.equal(storableText('x\uD800y'), 'x\uFFFDy');
    assert.equal(storableText('\uDC00lead'), '\uFFFDlead');
    assert.equal(storableText('tail\uDBFF'), 'tail\uFFFD');
    // Two lone halves in the wrong order are each replaced; a pair (an emoji) is untouched.
    assert.equal(storableText('\uDC00\uD800'), '\uFFFD\uFFFD');
    assert.equal(storableText('ok \uD83D\uDE00 \u00e9'), 'ok \uD83D\uDE00 \u00e9');
    const plain = 'nothing to change, not even\ttabs or\nnewlines';
    assert.equal(storableText(plain), plain);
  });

  it('writes JSON whose strings and keys carry no \\u0000 or lone-surrogate escape', () => {
    const value = {
      title: 'A\u0000B',
      nested: [{ text: 'x\uD800', fine: 'caf\u00e9' }, 'y\uDFFF', 3, null],
      ['key\u0000']: { ['\uD800k']: 'v' },
      at: new Date('2026-11-26T00:00:00Z'),
    };
    const json = storableJson(value);
    assert.doesNotMatch(json, /\\u0000|\\ud[89a-f]/i);
    assert.deepEqual(JSON.parse(json), {
      title: 'A\uFFFDB',
      nested: [{ text: 'x\uFFFD', fine: 'caf\u00e9' }, 'y\uFFFD', 3, null],
      ['key\uFFFD']: { ['\uFFFDk']: 'v' },
      at: '2026-11-26T00:00:00.000Z',
    });
    // The same bytes as JSON.stringify when there is nothing to replace.
    const clean = { a: [1, 'two', { three: true }], e: '\uD83D\uDE00' };
    assert.equal(storableJson(clean), JSON.stringify(clean));
  });

  it('keeps a receiver answer as text in the charset it names, and describes a binary one', () => {
    assert.equal(responseExcerpt(Buffer.from('ok'), { 'content-type': 'text/plain' }), 'ok');
    assert.equal(responseExcerpt(Buffer.alloc(0), {}), '');
    // One NUL in a text answer is replaced, the text kept.
    assert.equal(responseExcerpt(Buffer.from('accepted\u0000 by the queue'), {}), 'accepted\uFFFD by the queue');
    // windows-1252 and UTF-16 named in Content-Type are decoded as such.
    assert.equal(
      responseExcerpt(Buffer.from([0x63, 0x61, 0x66, 0xe9]), { 'content-type': 'text/plain; charset=windows-1252' }),
      'caf\u00e9',
    );
    assert.equal(
      responseExcerpt(Buffer.from('h\u00e9llo', 'utf16le'), { 'content-type': 'text/plain; charset="UTF-16LE"' }),
      'h\u00e9llo',
    );
    // A multi-byte character cut by the excerpt's byte limit, and an unknown charset label.
    assert.equal(responseExcerpt(Buffer.from('d\u00e9j\u00e0 vu').subarray(0, 5), {}), 'd\u00e9j\uFFFD');
    assert.equal(responseExcerpt(Buffer.from('plain'), { 'content-type': 'text/plain; charset=x-no-such' }), 'plain');

    for (const [body, headers, describes] of [
      [PNG, { 'content-type': 'image/png' }, /first 33 bytes; Content-Type image\/png/],
      [zlib.gzipSync('{"ok":true}'), { 'content-encoding': 'gzip' }, /Content-Encoding gzip/],
      // UTF-16 without a charset reads as text interleaved with NULs: binary to a person.
      [Buffer.from('accepted', 'utf16le'), {}, /^\[binary response body, first 16 bytes\]$/],
      [Buffer.from([0xff, 0xfe, 0x80, 0x00, 0xc3, 0x28, 0xa0, 0xa1]), {}, /binary response body/],
    ] as const) {
      const excerpt = responseExcerpt(body, headers);
      assert.match(excerpt, describes);
      assert.equal(storableText(excerpt), excerpt);
    }
  });

  it('tells a datum the database refuses from an outage', () => {
    for (const code of ['22P05', '22021', '22001', '23505', '42703', '54000'])
      assert.ok(isRefusedDatum(Object.assign(new Error('refused'), { code })), code);
    for (const code of ['08006', '57P01', '53300', '40001', 'ECONNREFUSED', undefined])
      assert.ok(!isRefusedDatum(Object.assign(new Error('outage'), { code })), String(code));
    assert.ok(!isRefusedDatum(null));
  });
});
