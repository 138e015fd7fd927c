import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import type { Text } from 'domhandler';
import { parsePage } from '../../src/analyzers/parse';
import { Aborter } from '../../src/crawl/abort';
import { createCrawlContext } from '../../src/crawl/context';
import { decodeBodyText } from '../../src/crawl/decode';
import { bodyEncoding, parseContentType } from '../../src/crawl/encoding';
import { fetchPage } from '../../src/crawl/page-fetch';
import type { OutboundResponse } from '../../src/outbound/client';
import { parseCidrList } from '../../src/outbound/policy';

// Real legacy-encoded bytes (made with iconv-lite 0.7.3 and checked against Node's ICU decoders).
const JAPANESE = '日本語のページ';
const SHIFT_JIS = Buffer.from([147, 250, 150, 123, 140, 234, 130, 204, 131, 121, 129, 91, 131, 87]);
const KOREAN = '한국어 페이지';
const EUC_KR = Buffer.from([199, 209, 177, 185, 190, 238, 32, 198, 228, 192, 204, 193, 246]);
const RUSSIAN = 'Русская страница';
const WINDOWS_1251 = Buffer.from([208, 243, 241, 241, 234, 224, 255, 32, 241, 242, 240, 224, 237, 232, 246, 224]);
const CHINESE = '中文页面';
const GBK = Buffer.from([214, 208, 206, 196, 210, 179, 195, 230]);
/** WINDOWS_1251 read as windows-1252, the WHATWG default: what a browser shows without a declaration. */
const RUSSIAN_AS_1252 = 'Ðóññêàÿ ñòðàíèöà';

const MAX = 1 << 20;

function response(body: Buffer, headers: Record<string, string> = {}): OutboundResponse {
  return {
    url: 'https://example.com/',
    status: 200,
    headers,
    body,
    truncated: false,
    ttfbMs: 1,
    totalMs: 1,
    remoteAddress: '127.0.0.1',
  };
}

/** An HTML page whose <title> holds `title` (bytes in some encoding) after the `head` markup. */
function page(title: Buffer, head = ''): Buffer {
  return Buffer.concat([
    Buffer.from(`<!doctype html><html><head>${head}<title>`),
    title,
    Buffer.from('</title></head><body><p>'),
    title,
    Buffer.from('</p></body></html>'),
  ]);
}

function titleOf(text: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(text)?.[1];
}

function decodedTitle(body: Buffer, contentType?: string): string | undefined {
  return titleOf(decodeBodyText(response(body, contentType ? { 'content-type': contentType } : {}), MAX));
}

describe('decodeBodyText: HTML decoded as browsers do', () => {
  it('decodes Shift_JIS, EUC-KR, windows-1251 and GBK named by the Content-Type charset only', () => {
    assert.equal(decodedTitle(page(SHIFT_JIS), 'text/html; charset=Shift_JIS'), JAPANESE);
    assert.equal(decodedTitle(page(EUC_KR), 'text/html;charset="euc-kr"'), KOREAN);
    assert.equal(decodedTitle(page(WINDOWS_1251), 'text/html; charset=windows-1251'), RUSSIAN);
    assert.equal(decodedTitle(page(GBK), 'text/html; charset=gbk'), CHINESE);
    assert.equal(decodedTitle(page(SHIFT_JIS), 'text/html; charset=x-sjis'), JAPANESE); // a WHATWG label
  });

  it('decodes from <meta charset> alone (no charset in Content-Type)', () => {
    assert.equal(decodedTitle(page(SHIFT_JIS, '<meta charset="shift_jis">'), 'text/html'), JAPANESE);
    assert.equal(decodedTitle(page(EUC_KR, '<meta charset=EUC-KR>'), 'text/html'), KOREAN);
    assert.equal(decodedTitle(page(WINDOWS_1251, "<meta charset='windows-1251'>"), 'text/html'), RUSSIAN);
  });

  it('decodes from <meta http-equiv="Content-Type" content="…; charset=…">', () => {
    const equiv = (label: string) => `<meta http-equiv="Content-Type" content="text/html; charset=${label}">`;
    assert.equal(decodedTitle(page(WINDOWS_1251, equiv('windows-1251')), 'text/html'), RUSSIAN);
    assert.equal(decodedTitle(page(SHIFT_JIS, equiv('Shift_JIS')), 'text/html'), JAPANESE);
    assert.equal(decodedTitle(page(EUC_KR, equiv('euc-kr'))), KOREAN); // no Content-Type at all
    // content="…charset=…" without http-equiv is not a declaration: the bytes are not UTF-8, so windows-1252.
    const noPragma = page(WINDOWS_1251, '<meta content="text/html; charset=windows-1251">');
    assert.equal(decodedTitle(noPragma, 'text/html'), RUSSIAN_AS_1252);
  });

  it('lets a byte-order mark override a wrong Content-Type and a wrong <meta>, and keeps it as U+FEFF', () => {
    const utf8Bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      page(Buffer.from(RUSSIAN), '<meta charset="koi8-r">'),
    ]);
    const text = decodeBodyText(response(utf8Bom, { 'content-type': 'text/html; charset=windows-1251' }), MAX);
    assert.equal(titleOf(text), RUSSIAN);
    assert.equal(text.charCodeAt(0), 0xfeff); // BP_DOCTYPE_CHARSET counts the BOM as a declaration
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(page(Buffer.from(JAPANESE)).toString(), 'utf16le'),
    ]);
    assert.equal(decodedTitle(utf16, 'text/html; charset=iso-8859-1'), JAPANESE);
  });

  it('control: a UTF-8 page without any declaration stays UTF-8, and a declared UTF-8 page too', () => {
    assert.equal(decodedTitle(page(Buffer.from(JAPANESE)), 'text/html'), JAPANESE);
    assert.equal(decodedTitle(page(Buffer.from(RUSSIAN))), RUSSIAN);
    assert.equal(bodyEncoding(page(Buffer.from('plain ascii')), 'text/html'), 'UTF-8');
    assert.equal(decodedTitle(page(Buffer.from(KOREAN), '<meta charset="utf-8">'), 'text/html'), KOREAN);
    // A body capped in the middle of a character is still UTF-8 (the cut character alone is lost).
    const cut = Buffer.from(`<!doctype html><title>${JAPANESE}</title>${'ぁ'.repeat(10)}`);
    assert.equal(bodyEncoding(cut.subarray(0, cut.length - 1), 'text/html'), 'UTF-8');
  });

  it('skips a charset name no encoding has, as the spec does, and goes on to the next step', () => {
    // Unknown header label: the <meta> decides.
    const withMeta = page(SHIFT_JIS, '<meta charset="shift_jis">');
    assert.equal(decodedTitle(withMeta, 'text/html; charset=x-no-such-charset'), JAPANESE);
    // Unknown header and <meta> labels: the WHATWG default, windows-1252 (these bytes are not UTF-8).
    const bogus = page(WINDOWS_1251, '<meta charset="cyrillic-please">');
    assert.equal(bodyEncoding(bogus, 'text/html; charset=utf-9'), 'windows-1252');
    assert.equal(decodedTitle(bogus, 'text/html; charset=utf-9'), RUSSIAN_AS_1252);
    // A "replacement" label (ISO-2022-KR) is a known name whose decoder yields one U+FFFD.
    assert.equal(
      decodeBodyText(response(page(EUC_KR), { 'content-type': 'text/html; charset=iso-2022-kr' }), MAX),
      '\uFFFD',
    );
  });

  it('follows the order BOM, Content-Type, <meta> in the first 1024 bytes, default', () => {
    // The header wins over the <meta>.
    assert.equal(decodedTitle(page(SHIFT_JIS, '<meta charset="utf-8">'), 'text/html; charset=shift_jis'), JAPANESE);
    // A <meta> after the first 1024 bytes is not seen; a commented-out one neither.
    const late = page(WINDOWS_1251, `<script>${'x'.repeat(1100)}</script><meta charset="windows-1251">`);
    assert.equal(bodyEncoding(late, 'text/html'), 'windows-1252');
    assert.equal(
      bodyEncoding(page(WINDOWS_1251, '<!-- <meta charset="windows-1251"> -->'), 'text/html'),
      'windows-1252',
    );
  });

  it('still decompresses gzip and br before decoding', () => {
    const body = page(SHIFT_JIS, '<meta charset="shift_jis">');
    const gzip = response(zlib.gzipSync(body), { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    assert.equal(titleOf(decodeBodyText(gzip, MAX)), JAPANESE);
    const br = response(zlib.brotliCompressSync(page(EUC_KR)), {
      'content-type': 'text/html; charset=euc-kr',
      'content-encoding': 'br',
    });
    assert.equal(titleOf(decodeBodyText(br, MAX)), KOREAN);
  });
});

describe('decodeBodyText: non-HTML text keeps its own rules', () => {
  const decode = (body: Buffer, contentType: string) =>
    decodeBodyText(response(body, { 'content-type': contentType }), MAX);

  it('robots.txt, llms.txt and other text: UTF-8 unless a BOM or the Content-Type says otherwise', () => {
    const robots = Buffer.from(`User-agent: *\nDisallow: /${RUSSIAN}\n`);
    assert.equal(decode(robots, 'text/plain'), robots.toString()); // never the HTML default windows-1252
    const legacy = Buffer.concat([Buffer.from('Disallow: /'), WINDOWS_1251]);
    assert.equal(decode(legacy, 'text/plain; charset=windows-1251'), `Disallow: /${RUSSIAN}`);
    // A <meta> in a text file is text, not a declaration.
    assert.equal(bodyEncoding(Buffer.from('<meta charset="shift_jis">'), 'text/plain'), 'UTF-8');
  });

  it('sitemaps and XML: BOM, Content-Type, then the XML declaration, then UTF-8', () => {
    const xml = Buffer.concat([
      Buffer.from('<?xml version="1.0" encoding="windows-1251"?><urlset><url><loc>https://example.com/'),
      WINDOWS_1251,
      Buffer.from('</loc></url></urlset>'),
    ]);
    assert.match(decode(xml, 'application/xml'), new RegExp(RUSSIAN));
    assert.match(decode(xml, 'application/gzip'), new RegExp(RUSSIAN)); // a .xml.gz file, decompressed
    assert.equal(bodyEncoding(xml, 'text/xml; charset=utf-8'), 'UTF-8'); // the header wins
    assert.equal(bodyEncoding(Buffer.from('<urlset/>'), 'application/xml'), 'UTF-8');
  });

  it('CSS: BOM, Content-Type, @charset, then UTF-8', () => {
    const css = Buffer.concat([
      Buffer.from('@charset "windows-1251";\n.a::before { content: "'),
      WINDOWS_1251,
      Buffer.from('" }'),
    ]);
    assert.match(decode(css, 'text/css'), new RegExp(RUSSIAN));
    assert.equal(bodyEncoding(css, 'text/css; charset=shift_jis'), 'Shift_JIS');
    assert.equal(bodyEncoding(Buffer.from('@charset "utf-16le";'), 'text/css'), 'UTF-8');
    assert.equal(bodyEncoding(Buffer.from(`a::before { content: "${RUSSIAN}" }`), 'text/css'), 'UTF-8');
  });

  it('parses the charset parameter of a Content-Type value', () => {
    assert.deepEqual(parseContentType('Text/HTML; Charset="Shift_JIS"'), { type: 'text/html', charset: 'Shift_JIS' });
    assert.deepEqual(parseContentType('text/html;charset=euc-kr; foo=bar'), { type: 'text/html', charset: 'euc-kr' });
    assert.deepEqual(parseContentType('text/html; charset='), { type: 'text/html' });
  });
});

describe('fetchPage: a Shift_JIS site on loopback', () => {
  const META = '<meta charset="Shift_JIS">';
  let server: http.Server;
  let origin: string;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/meta') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(page(SHIFT_JIS, META));
      } else {
        res.writeHead(200, { 'content-type': 'text/html; charset=Shift_JIS' });
        res.end(page(SHIFT_JIS));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const path of ['/', '/meta']) {
    it(`decodes the title of ${path === '/' ? 'a header-declared' : 'a <meta>-declared'} Shift_JIS page`, async () => {
      const context = createCrawlContext(
        {
          origin,
          pageBudget: 1,
          allow: parseCidrList('127.0.0.0/8'),
          userAgent: 'test',
          lookupDns: false,
          probeTls: false,
        },
        new Aborter(undefined),
      );
      const outcome = await fetchPage(context, { url: `${origin}${path}`, depth: 0 });
      assert.ok(outcome.page);
      const parsed = parsePage(outcome.page);
      const title = parsed.elements('title')[0]!.children[0] as Text;
      assert.equal(title.data, JAPANESE);
      assert.equal(outcome.page.bytes, (path === '/' ? page(SHIFT_JIS) : page(SHIFT_JIS, META)).length);
    });
  }
});
