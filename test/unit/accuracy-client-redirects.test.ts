import assert from 'node:assert/strict';
import { clientRedirect, isContentPage, parseRefresh } from '../../src/analyzers/client-redirect';
import { parsePage } from '../../src/analyzers/parse';
import type { HeaderMap } from '../../src/analyzers/snapshot';
import { extractLinks } from '../../src/crawl/page-links';

/**
 * Client-side redirects (docs/analyzers.md): the refresh is read as the HTML standard's shared
 * declarative refresh steps read it, a page that refreshes to another URL is a redirect, and the
 * crawl follows it. Each rule beside the control that must not be taken for one.
 */

const URL_ = 'https://example.com/docs/old';

function page(head: string, headers: HeaderMap = {}, status = 200) {
  return parsePage({
    url: URL_,
    finalUrl: URL_,
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
    body: `<!DOCTYPE html><html lang="en"><head><title>Old</title>${head}</head><body><p>Moved.</p></body></html>`,
    ttfbMs: 10,
    bytes: 100,
    depth: 1,
    redirectChain: [],
  });
}

const refresh = (content: string) => `<meta http-equiv="refresh" content="${content}">`;

describe('accuracy: client-side redirects', () => {
  it('parses refresh contents as browsers do', () => {
    const cases: Array<[string, ReturnType<typeof parseRefresh>]> = [
      ['0; url=/new', { delaySeconds: 0, url: '/new' }],
      ['1;URL=/new', { delaySeconds: 1, url: '/new' }],
      ["0; URL='/a b'; ignored", { delaySeconds: 0, url: '/a b' }],
      ['0; url="/q"x', { delaySeconds: 0, url: '/q' }],
      ['  5  ,  /comma', { delaySeconds: 5, url: '/comma' }],
      ['0 https://example.com/space', { delaySeconds: 0, url: 'https://example.com/space' }],
      ['0; url = /spaced', { delaySeconds: 0, url: '/spaced' }],
      // "u" then not "rl=": the whole rest is the URL, as the standard says
      ['0; urn:x', { delaySeconds: 0, url: 'urn:x' }],
      ['0; ur', { delaySeconds: 0, url: 'ur' }],
      ['0.5; url=/half', { delaySeconds: 0, url: '/half' }],
      ['.5; url=/dot', { delaySeconds: 0, url: '/dot' }],
      ['300', { delaySeconds: 300, url: null }],
      ['0;', { delaySeconds: 0, url: null }],
    ];
    for (const [content, expected] of cases) assert.deepEqual(parseRefresh(content), expected, content);
    // What browsers ignore.
    for (const content of ['', 'soon', '; url=/x', 'url=/x', '5x; url=/x', '-1; url=/x'])
      assert.equal(parseRefresh(content), null, content);
  });

  it('takes a refresh to another URL for a redirect; a page reloading itself is a page', () => {
    const moved = clientRedirect(page(refresh('1; url=../new/')));
    assert.deepEqual(moved && { to: moved.to, delaySeconds: moved.delaySeconds }, {
      to: 'https://example.com/new/',
      delaySeconds: 1,
    });
    assert.match(moved!.declaration, /<meta http-equiv="refresh" content="1; url=..\/new\/">/);
    assert.equal(isContentPage(page(refresh('1; url=../new/'))), false);
    // controls: a self reload, a refresh to the page itself (a fragment aside), no refresh at all
    for (const head of [refresh('300'), refresh(`0; url=${URL_}#top`), refresh('0; url=old'), ''])
      assert.equal(clientRedirect(page(head)), null, head);
    assert.equal(isContentPage(page(refresh('300'))), true);
    // a javascript: or mailto: target is not a redirect to a page
    assert.equal(clientRedirect(page(refresh('0; url=javascript:alert(1)'))), null);
    // only 2xx HTML pages: an error page with a refresh is judged by its status
    assert.equal(clientRedirect(page(refresh('0; url=/new'), {}, 404)), null);
  });

  it('resolves against <base href>, counts the first valid meta element and lets the header win', () => {
    assert.equal(
      clientRedirect(page(`<base href="https://example.com/b/">${refresh('0; url=x')}`))?.to,
      'https://example.com/b/x',
    );
    // an invalid first element is ignored; a valid self reload ends the search (later ones are ignored)
    assert.equal(
      clientRedirect(page(`${refresh('soon')}${refresh('0; url=/second')}`))?.to,
      'https://example.com/second',
    );
    assert.equal(clientRedirect(page(`${refresh('600')}${refresh('0; url=/second')}`)), null);
    const byHeader = clientRedirect(page(refresh('0; url=/from-meta'), { refresh: '2; url=/from-header' }));
    assert.equal(byHeader?.to, 'https://example.com/from-header');
    assert.equal(byHeader?.declaration, 'Refresh: 2; url=/from-header');
  });

  it('has the crawl follow the refresh as a link of the page', () => {
    const html = `<html><head><base href="/b/">${refresh('soon')}${refresh('0; url=next')}${refresh('0; url=/ignored')}</head><body><a href="/a">A</a></body></html>`;
    assert.deepEqual(extractLinks(html, 'https://example.com/p').links, [
      'https://example.com/b/next',
      'https://example.com/a',
    ]);
    // the header wins over the markup, and is resolved against the page URL
    assert.deepEqual(extractLinks(html, 'https://example.com/p', '1; url=/from-header').links, [
      'https://example.com/from-header',
      'https://example.com/a',
    ]);
    // control: a self reload adds no link
    assert.deepEqual(
      extractLinks(`<meta http-equiv="refresh" content="30"><a href="/a">A</a>`, 'https://example.com/p').links,
      ['https://example.com/a'],
    );
  });
});
