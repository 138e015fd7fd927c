import assert from 'node:assert/strict';
import { parsePages } from '../../src/analyzers/parse';
import type { RenderedFacts } from '../../src/analyzers/rendered-facts';
import { contentNeedsJs } from '../../src/analyzers/seo-content-js';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import { APP_SHELL_MAX_WORDS, isAppShell, shellFacts } from '../../src/crawl/app-shell';
import { renderedFacts } from '../../src/crawl/durable/render-step';

const ORIGIN = 'https://example.com';
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
const shell = (body = '<div id="app"></div>', head = '<script type="module" src="/app.js"></script>') =>
  `<!doctype html><html><head><title>A title of many words that is not body text</title>${head}</head><body>${body}</body></html>`;

describe('the application-shell rule (src/crawl/app-shell.ts)', () => {
  it('counts the scripts that run, external, inline or modules, and not JSON or templates', () => {
    const html = shell(
      `<script>render()</script><script type="application/ld+json">{"a":1}</script><script type="text/x-template"><p>x</p></script><script type="text/javascript" src="/b.js"></script>`,
    );
    assert.equal(shellFacts(html).scripts, 3);
    assert.equal(shellFacts('<p>No script at all</p>').scripts, 0);
  });

  it('counts body words outside script, style, noscript and template, elements separating words', () => {
    const html = shell(
      `<p>one two</p><p>three</p><script>var notText = "a b c"</script><style>p { color: red }</style><noscript>Please enable JavaScript to use this app</noscript><template><p>four five</p></template><div>six<br>seven</div>`,
    );
    assert.equal(shellFacts(html).words, 5);
  });

  it('is a shell: a script, almost no text and no link to another page of the site', () => {
    assert.equal(isAppShell(shell(), 0), true);
    assert.equal(isAppShell(shell(`<div id="app"><p>${words(APP_SHELL_MAX_WORDS - 1)}</p></div>`), 0), true);
    assert.equal(isAppShell(shell('<div id="root"></div>', '<script>boot()</script>'), 0), true);
  });

  it('is no shell (the control cases): enough text, a same-site link, or no script', () => {
    assert.equal(isAppShell(shell(`<main><p>${words(APP_SHELL_MAX_WORDS)}</p></main>`), 0), false);
    assert.equal(isAppShell(shell('<div id="app"><a href="/about">About</a></div>'), 1), false);
    assert.equal(isAppShell(shell('<div id="app"></div>', ''), 0), false);
    assert.equal(isAppShell(shell('', '<script type="application/ld+json">{}</script>'), 0), false);
  });
});

describe('rendered facts (src/crawl/durable/render-step.ts)', () => {
  it('counts links as the crawl reads them and main text as SEO_DUPLICATE_CONTENT does, in the response and rendered', () => {
    const body = shell('<div id="app"></div><a href="https://other.example/x">Elsewhere</a>');
    const html = `<html><head></head><body><nav><a href="/">Home</a> <a href="/a">A</a></nav><main><p>${words(60)}</p><a href="/b#part">B</a> <a href="/b">B again</a> <a href="https://other.example/x">Elsewhere</a></main></body></html>`;
    const { facts, onlyRendered } = renderedFacts(
      { page: { finalUrl: `${ORIGIN}/` }, body },
      { url: `${ORIGIN}/`, html },
    );
    assert.deepEqual(facts, {
      status: 'rendered',
      linksInResponse: 1,
      linksRendered: 4,
      linksOnlyRendered: 3,
      wordsInResponse: 1,
      wordsRendered: 64,
    });
    assert.deepEqual(onlyRendered, [`${ORIGIN}/`, `${ORIGIN}/a`, `${ORIGIN}/b`]);
  });
});

function page(path: string, rendered?: RenderedFacts): SnapshotPage {
  return {
    url: `${ORIGIN}${path}`,
    finalUrl: `${ORIGIN}${path}`,
    status: 200,
    headers: { 'content-type': 'text/html' },
    body: shell(),
    ttfbMs: 10,
    bytes: 100,
    depth: path === '/' ? 0 : 1,
    redirectChain: [],
    ...(rendered ? { rendered } : {}),
  };
}

function run(pages: SnapshotPage[]) {
  const snapshot: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: '', status: 404, body: '' },
    pages,
  };
  return contentNeedsJs.run(snapshot, parsePages(pages));
}

const facts = (l0: number, l1: number, only: number, w0: number, w1: number): RenderedFacts => ({
  status: 'rendered',
  linksInResponse: l0,
  linksRendered: l1,
  linksOnlyRendered: only,
  wordsInResponse: w0,
  wordsRendered: w1,
});

describe('SEO_CONTENT_NEEDS_JS', () => {
  it('is not applicable when no page was rendered', () => {
    assert.equal(run([page('/'), page('/a')]).status, 'not_applicable');
    assert.equal(run([page('/', { status: 'unrenderable', reason: 'timed out' })]).status, 'not_applicable');
  });

  it('fails the pages whose links or main text exist only after rendering, with the counts as evidence', () => {
    const outcome = run([
      page('/', facts(0, 3, 3, 2, 182)),
      page('/links-only', facts(0, 2, 2, 10, 12)),
      page('/text-only', facts(5, 5, 0, 20, 120)),
      page('/server', facts(40, 41, 1, 300, 305)),
      page('/plain'),
    ]);
    assert.equal(outcome.status, 'fail');
    assert.equal(outcome.score, 1 / 4);
    assert.equal(outcome.findings.length, 1);
    assert.deepEqual(outcome.findings[0]!.urls, [`${ORIGIN}/`, `${ORIGIN}/links-only`, `${ORIGIN}/text-only`]);
    assert.equal(
      outcome.findings[0]!.evidence,
      '/: links 0 → 3, words of main text 2 → 182; /links-only: links 0 → 2, words of main text 10 → 12; /text-only: links 5 → 5, words of main text 20 → 120',
    );
  });

  it('passes a rendered page that shows what its response has (the control), and reports unrenderable pages at info level', () => {
    const outcome = run([
      page('/', facts(12, 13, 1, 400, 420)),
      page('/broken', { status: 'unrenderable', reason: 'the page did not finish loading in 30 s' }),
    ]);
    assert.equal(outcome.status, 'pass');
    assert.equal(outcome.score, 1);
    assert.deepEqual(
      outcome.findings.map((f) => [f.severity, f.urls, f.evidence]),
      [['info', [`${ORIGIN}/broken`], '/broken: the page did not finish loading in 30 s']],
    );
  });

  it('keeps its evidence within bounds and still names every page', () => {
    const pages = Array.from({ length: 30 }, (_, i) => page(`/p${i}`, facts(0, 4, 4, 0, 90)));
    const outcome = run(pages);
    assert.equal(outcome.findings[0]!.urls.length, 30);
    assert.ok(outcome.findings[0]!.evidence.length <= 300);
    assert.match(outcome.findings[0]!.evidence, /; and \d+ more$/);
  });
});
