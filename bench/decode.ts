import zlib from 'node:zlib';
import { decodeBodyText } from '../src/crawl/decode';
import type { OutboundResponse } from '../src/outbound/client';
import { storableText } from '../src/text/storable';

/**
 * `npm run bench:decode`: what decoding as browsers do (src/crawl/encoding.ts: encoding sniffing,
 * then the sniffed decoder) costs per 30 KB page, beside the old UTF-8-only decoding measured in the
 * same process on the same bytes (alternating rounds, so machine load hits both). Target ≤ 1 ms.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS || 7);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS || 400);
const PAGE_BYTES = 30_000;
const MAX = 5 << 20;

// 日本語のページ in Shift_JIS, Русская страница in windows-1251 (as in test/unit/decode.test.ts).
const SHIFT_JIS = Buffer.from([147, 250, 150, 123, 140, 234, 130, 204, 131, 121, 129, 91, 131, 87]);
const WINDOWS_1251 = Buffer.from([208, 243, 241, 241, 234, 224, 255, 32, 241, 242, 240, 224, 237, 232, 246, 224]);

/** A page of about PAGE_BYTES: markup around paragraphs made of `text` (bytes in the page's encoding). */
function page(head: string, text: Buffer): Buffer {
  const parts = [Buffer.from(`<!DOCTYPE html><html><head>${head}<title>Bench</title></head><body>`)];
  let size = parts[0]!.length;
  for (let i = 0; size < PAGE_BYTES; i++) {
    const paragraph = Buffer.concat([
      Buffer.from(`<p class="c${i}"><a href="/a${i}">link</a> `),
      text,
      text,
      Buffer.from('</p>\n'),
    ]);
    parts.push(paragraph);
    size += paragraph.length;
  }
  parts.push(Buffer.from('</body></html>'));
  return Buffer.concat(parts);
}

function response(body: Buffer, headers: Record<string, string>): OutboundResponse {
  return {
    url: 'https://bench.example/',
    status: 200,
    headers,
    body,
    truncated: false,
    ttfbMs: 1,
    totalMs: 1,
    remoteAddress: '127.0.0.1',
  };
}

/** decodeBodyText as it was before encoding sniffing: decompression, then UTF-8 whatever the page says. */
function oldDecode(r: OutboundResponse): string {
  const encoding = String(r.headers['content-encoding'] ?? '').toLowerCase();
  const options = { maxOutputLength: MAX, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const bytes = encoding === 'gzip' ? zlib.gunzipSync(r.body, options) : r.body;
  return storableText(bytes.toString('utf8'));
}

const english = Buffer.from('Plain English text about the product, with enough words to look like a page. ');
const japaneseUtf8 = Buffer.from('日本語のページです。これはテストの文章です。');
const utf8Page = page('<meta charset="utf-8">', english);
const CASES: { name: string; response: OutboundResponse }[] = [
  { name: 'UTF-8, <meta charset>', response: response(utf8Page, { 'content-type': 'text/html' }) },
  { name: 'UTF-8, header charset', response: response(utf8Page, { 'content-type': 'text/html; charset=utf-8' }) },
  { name: 'UTF-8 Japanese, undeclared', response: response(page('', japaneseUtf8), { 'content-type': 'text/html' }) },
  {
    name: 'Shift_JIS, header charset',
    response: response(page('', SHIFT_JIS), { 'content-type': 'text/html; charset=shift_jis' }),
  },
  {
    name: 'windows-1251, <meta charset>',
    response: response(page('<meta charset="windows-1251">', WINDOWS_1251), { 'content-type': 'text/html' }),
  },
  {
    name: 'UTF-8, gzip',
    response: response(zlib.gzipSync(utf8Page), { 'content-type': 'text/html', 'content-encoding': 'gzip' }),
  },
];

/** µs per call of `fn` over ITERATIONS calls. */
function perCall(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / ITERATIONS;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function main(): void {
  console.log(`decode: ${ROUNDS} rounds × ${ITERATIONS} pages of ~${PAGE_BYTES / 1000} KB, median µs per page`);
  let worst = 0;
  for (const c of CASES) {
    const fresh: number[] = [];
    const old: number[] = [];
    decodeBodyText(c.response, MAX); // warm both paths (decoder construction, JIT)
    oldDecode(c.response);
    for (let round = 0; round < ROUNDS; round++) {
      fresh.push(perCall(() => decodeBodyText(c.response, MAX)));
      old.push(perCall(() => oldDecode(c.response)));
    }
    const [now, before] = [median(fresh), median(old)];
    worst = Math.max(worst, now);
    const bytes = (c.response.body.length / 1000).toFixed(1);
    console.log(
      `  ${c.name.padEnd(30)} ${bytes.padStart(5)} KB  ${now.toFixed(1).padStart(7)} µs  (old UTF-8 only ${before.toFixed(1)} µs, ×${(now / before).toFixed(2)})`,
    );
  }
  console.log(`worst case ${worst.toFixed(1)} µs per page: ${worst <= 1000 ? 'within' : 'OVER'} the 1 ms target`);
}

main();
