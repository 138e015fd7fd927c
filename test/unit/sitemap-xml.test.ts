import assert from 'node:assert/strict';
import { parseSitemapXml } from '../../src/crawl/sitemaps';

/**
 * Sitemap well-formedness as XML defines it. The hreflang sitemap below is the start of the one Hugo
 * wrote for mitsuyoshi-yamazaki.github.io (en/sitemap.xml, one of the real sites of
 * bench/compare/real-sites.json): its self-closing `<xhtml:link …/>` elements, the form Google's
 * documentation gives, were reported as "not closed".
 */
const HUGO_HREFLANG_SITEMAP =
  '<?xml version="1.0" encoding="utf-8" standalone="yes"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">' +
  '<url><loc>https://mitsuyoshi-yamazaki.github.io/tags/alife/</loc><lastmod>2023-02-21T09:06:16+09:00</lastmod>' +
  '<xhtml:link rel="alternate" hreflang="ja-jp" href="https://mitsuyoshi-yamazaki.github.io/ja-jp/tags/alife/"/>' +
  '<xhtml:link rel="alternate" hreflang="en" href="https://mitsuyoshi-yamazaki.github.io/tags/alife/"/></url>' +
  '<url><loc>https://mitsuyoshi-yamazaki.github.io/</loc><lastmod>2023-02-21T09:06:16+09:00</lastmod>' +
  '<xhtml:link rel="alternate" hreflang="ja-jp" href="https://mitsuyoshi-yamazaki.github.io/ja-jp/"/>' +
  '<xhtml:link rel="alternate" hreflang="en" href="https://mitsuyoshi-yamazaki.github.io/"/></url></urlset>';

describe('sitemap XML', () => {
  it('takes self-closing elements as closed (hreflang alternates in a real Hugo sitemap)', () => {
    assert.deepEqual(parseSitemapXml(HUGO_HREFLANG_SITEMAP, 10), {
      root: 'urlset',
      locCount: 2,
      locs: ['https://mitsuyoshi-yamazaki.github.io/tags/alife/', 'https://mitsuyoshi-yamazaki.github.io/'],
    });
    assert.equal(
      parseSitemapXml('<urlset><url><loc>https://a.example/</loc><x:y/></url></urlset>', 10).xmlError,
      undefined,
    );
  });

  it('still reports an element that is never closed, however it ends', () => {
    // an HTML page served as the sitemap: <link> is a void element in HTML, not in XML
    const html = parseSitemapXml('<html><head><link rel="stylesheet" href="/a.css"><meta x="y"/></head></html>', 10);
    assert.equal(html.xmlError, 'element <link> is not closed');
    assert.equal(
      parseSitemapXml('<urlset><url><loc>https://a.example/</loc></urlset>', 10).xmlError,
      'element <url> is not closed',
    );
    assert.equal(parseSitemapXml('<urlset><url>', 10).xmlError, 'element <url> is not closed');
  });
});
