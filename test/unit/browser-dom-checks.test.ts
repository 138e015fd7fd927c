import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BrowserPool } from '../../src/browser/pool';
import type { DomRender } from '../../src/browser/dom-render';
import type { RenderedChecks } from '../../src/browser/stage-result';
import { parseCidrList } from '../../src/outbound/policy';
import { serveBrowserSite, type BrowserFixtureSite } from '../support/browser-sites';
import { CHROMIUM_PATH, ensureChromium } from '../support/chromium';

/**
 * The rendered-DOM checks of `render: "all"` (src/browser/dom-checks.ts) in Debian's Chromium, on the
 * browser stage's fixture pages (test/support/browser-sites.ts, one defect each), through the
 * outbound-policy proxy: axe's three rules and the console errors as Lighthouse reports them on
 * the same pages (test/unit/browser-render.test.ts), each defect on its own page and none on the
 * plain one.
 */
describe('rendered-DOM checks (Chromium + axe-core)', function () {
  this.timeout(300_000);
  const PATHS = ['/', '/contrast', '/link-colour', '/tiny-targets', '/throws', '/ssrf'];
  let site: BrowserFixtureSite;
  let own: { origin: string; close(): Promise<void> };
  let pool: BrowserPool;
  const results = new Map<string, DomRender>();

  before(async () => {
    ensureChromium((line) => console.log(`  [setup] ${line}`));
    site = await serveBrowserSite();
    own = await serveOwnAxePage();
    pool = new BrowserPool({ executablePath: CHROMIUM_PATH, size: 1, allow: parseCidrList('127.0.0.0/8') });
    // The plain page first: the browser's own /favicon.ico request (a 404 here) comes with it.
    for (const path of PATHS) results.set(path, await pool.renderDom(`${site.origin}${path}`, { checks: true }));
    results.set('own-axe', await pool.renderDom(`${own.origin}/`, { checks: true }));
    results.set('names', await pool.renderDom(`${own.origin}/names`, { checks: true }));
    results.set('unchecked', await pool.renderDom(`${site.origin}/contrast`));
  });
  after(async () => {
    await pool?.close();
    await site?.close();
    await own?.close();
  });

  const checks = (key: string): RenderedChecks => {
    const result = results.get(key)!;
    assert.equal(result.status, 'rendered', `${key}: ${JSON.stringify(result)}`);
    assert.ok(result.status === 'rendered' && result.checks, `${key}: no checks`);
    return (result as { checks: RenderedChecks }).checks;
  };
  const rules = (key: string) => checks(key).violations.map((v) => v.rule);

  it('a plain page: nothing, not even the favicon the browser asked for by itself', () => {
    assert.deepEqual(checks('/'), { violations: [], nameRulesApplied: ['link-name'], consoleErrors: [] });
    assert.ok(site.requests.includes('/favicon.ico'), 'Chromium did ask for it');
  });

  it('low-contrast text: color-contrast on that element, named and quoted as Lighthouse does', () => {
    assert.deepEqual(rules('/contrast'), ['color-contrast']);
    const [node, ...others] = checks('/contrast').violations[0]!.nodes;
    assert.deepEqual(others, []);
    assert.equal(node!.selector, 'body > p#faint');
    assert.equal(node!.html, '<p id="faint" style="color:#c8c8c8;background:#ffffff">');
    assert.match(node!.message, /insufficient color contrast of 1\.\d+ \(foreground color: #c8c8c8/);
  });

  it('a link told apart by colour only: link-in-text-block; tiny targets: target-size on both', () => {
    assert.deepEqual(rules('/link-colour'), ['link-in-text-block']);
    assert.deepEqual(
      checks('/link-colour').violations[0]!.nodes.map((n) => n.selector),
      ['body > p > a#colour-link'],
    );
    assert.deepEqual(rules('/tiny-targets'), ['target-size']);
    assert.deepEqual(
      checks('/tiny-targets').violations[0]!.nodes.map((n) => n.html.match(/href="([^"]+)"/)?.[1]),
      ['/a', '/b'],
    );
  });

  it('console errors: the exception and console.error with the page URL; a refused request as a network error', () => {
    const errors = checks('/throws').consoleErrors;
    assert.deepEqual(
      errors.map((e) => [e.source, e.url]),
      [
        ['exception', `${site.origin}/throws`],
        ['console', `${site.origin}/throws`],
      ],
    );
    assert.match(errors[0]!.text, /fixture exception/);
    assert.equal(errors[1]!.text, 'fixture logged an error');
    assert.deepEqual(rules('/throws'), []);
    assert.ok(
      checks('/ssrf').consoleErrors.some(
        (e) => e.source === 'network' && e.url === 'http://169.254.169.254/latest/meta-data/logo.png',
      ),
    );
  });

  it('names on the rendered DOM: an alt added by script counts, a name removed by script is missed', () => {
    const names = checks('names');
    assert.deepEqual(names.nameRulesApplied, ['image-alt', 'button-name']);
    assert.deepEqual(
      names.violations.map((v) => [v.rule, v.nodes.map((n) => n.selector)]),
      [
        ['button-name', ['body > button#menu']],
        ['image-alt', ['body > img#bare']],
      ],
    );
  });

  it("runs apart from the page's scripts: a page's own `axe` cannot hide its contrast", () => {
    assert.deepEqual(rules('own-axe'), ['color-contrast']);
  });

  it('without `checks` (an application shell) the render carries none', () => {
    const plain = results.get('unchecked')!;
    assert.equal(plain.status, 'rendered');
    assert.equal('checks' in plain, false);
  });
});

const DOT = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
/** Two images without alt, one given its alt by the page's script, and a button the script empties. */
const NAMES = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Names</title></head>
<body><p>Photos.</p><img id="bare" src="${DOT}" width="20" height="20"><img id="late" src="${DOT}" width="20" height="20"><button id="menu">Menu</button>
<script>document.getElementById('late').alt = 'Late'; document.getElementById('menu').textContent = '';</script></body></html>`;

/** A page that defines its own `window.axe`, answering that all is well, over faint text; and the names page. */
async function serveOwnAxePage(): Promise<{ origin: string; close(): Promise<void> }> {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Own axe</title>
<script>window.axe = { run: () => Promise.resolve({ violations: [] }), configure() {} }; Array.prototype.flat = undefined;</script></head>
<body><p style="color:#cccccc">This faint paragraph is hard to read on a white background.</p></body></html>`;
  const server = http.createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    else if (req.url === '/names') res.writeHead(200, { 'content-type': 'text/html' }).end(NAMES);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
