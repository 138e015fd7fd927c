/**
 * The accuracy rules (docs/analyzers.md "Accuracy rules"): each false verdict found against
 * Lighthouse and axe, proved fixed, and the true verdict next to it proved kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { imgAltMissing } from '../../src/analyzers/a11y-page';
import { controlNameMissing, formLabelMissing } from '../../src/analyzers/a11y-forms';
import { displayWidth } from '../../src/analyzers/display-width';
import { GENERIC_LINK_TEXT_LANGUAGES } from '../../src/analyzers/generic-link-texts';
import { parsePages, stylesheetTexts } from '../../src/analyzers/parse';
import { imgUnsized } from '../../src/analyzers/performance-page';
import { anchorNotCrawlable, linkTextGeneric } from '../../src/analyzers/seo-anchors';
import { canonicalInvalid } from '../../src/analyzers/seo-links';
import { httpStatusError, titleDuplicate } from '../../src/analyzers/seo-page';
import { brokenLink } from '../../src/analyzers/seo-site';
import { sitemapInvalid } from '../../src/analyzers/seo-sitemap';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';
import { syntheticAudit } from '../../src/audits/synthetic';
import { renderAuditReport } from '../../src/reports/pdf';
import { codeSpans } from '../../src/reports/pdf/code-spans';
import { extract, flat } from '../support/pdf';
import { syntheticInput } from '../support/synthetic-input';

const ORIGIN = 'https://example.com';

let n = 0;
function page(body: string, over: Partial<SnapshotPage> & { path?: string } = {}): SnapshotPage {
  const url = `${ORIGIN}${over.path ?? `/p${n++}`}`;
  return {
    url,
    finalUrl: url,
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page title of a decent length</title></head><body>${body}</body></html>`,
    ttfbMs: 100,
    bytes: 10_000,
    depth: 1,
    redirectChain: [],
    ...over,
  };
}

function snapshotOf(pages: SnapshotPage[]): CrawlSnapshot {
  return { origin: ORIGIN, robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' }, pages };
}

function run(a: Analyzer, pages: SnapshotPage[], extra: Partial<CrawlSnapshot> = {}): AnalyzerOutcome {
  const s: CrawlSnapshot = {
    origin: ORIGIN,
    robots: { kind: 'fetched', url: `${ORIGIN}/robots.txt`, status: 404, body: '' },
    pages,
    ...extra,
  };
  return a.run(s, parsePages(s.pages));
}

const status = (a: Analyzer, body: string) => run(a, [page(body)]).status;

describe('accuracy rules', () => {
  it('elements hidden by the page CSS are not judged; the same markup visible is', () => {
    const toggle = '<input type="checkbox" class="toggle" id="nav"><label class="burger">☰</label>';
    assert.equal(status(formLabelMissing, toggle), 'fail');
    assert.equal(
      status(formLabelMissing, `<style>/* menu */ .toggle{display:none}</style>${toggle}`),
      'not_applicable',
    );
    assert.equal(
      status(formLabelMissing, `<style>nav > input[type=checkbox] { visibility: hidden }</style><nav>${toggle}</nav>`),
      'not_applicable',
    );
    // A selector we cannot evaluate hides nothing, and @media blocks are not applied.
    assert.equal(status(formLabelMissing, `<style>.toggle:checked{display:none}</style>${toggle}`), 'fail');
    assert.equal(status(formLabelMissing, `<style>@media print{.toggle{display:none}}</style>${toggle}`), 'fail');
    // Hidden through an ancestor, by a class rule or inline style.
    const img = '<img src="/x.png">';
    assert.equal(status(imgAltMissing, `<div class="drawer">${img}</div>`), 'fail');
    assert.equal(
      status(imgAltMissing, `<style>.drawer .x, .drawer{display:none}</style><div class="drawer">${img}</div>`),
      'pass',
    );
    assert.equal(status(imgAltMissing, `<div style="display: none">${img}</div>`), 'pass');
    assert.equal(
      status(controlNameMissing, '<style>#close{display:none}</style><button id="close"></button>'),
      'not_applicable',
    );
    assert.equal(status(controlNameMissing, '<style>#other{display:none}</style><button id="close"></button>'), 'fail');
  });

  it('images sized by a stylesheet rule or inline style are sized; a rule with one side is not enough', () => {
    const logo = '<img class="site-logo" src="/logo.png" alt="Logo">';
    assert.equal(status(imgUnsized, logo), 'fail');
    assert.match(
      run(imgUnsized, [page(logo)]).findings[0]!.message,
      /^The image \/logo\.png has no width and height\.$/,
    );
    assert.equal(status(imgUnsized, `<style>.site-logo{width:120px;height:40px}</style>${logo}`), 'pass');
    assert.equal(status(imgUnsized, `<style>header img{width:120px}</style><header>${logo}</header>`), 'fail');
    assert.equal(
      status(imgUnsized, `<style>img.site-logo{width:120px}.site-logo{height:auto;aspect-ratio:3/1}</style>${logo}`),
      'pass',
    );
    assert.equal(
      status(imgUnsized, `<style>.hidden-logo{display:none}</style><img class="hidden-logo" src="/l.png">`),
      'pass',
    );
  });

  it('rules of the site stylesheets a page links apply; unlinked or print-only sheets do not', () => {
    const stylesheets = [
      { url: `${ORIGIN}/css/site.css`, text: '.site-logo{width:120px;height:40px} .toggle{display:none}' },
    ];
    const logo = (link: string) => page(`${link}<img class="site-logo" src="/logo.png" alt="Logo">`);
    const analyse = (a: Analyzer, p: SnapshotPage) => {
      const s: CrawlSnapshot = { ...snapshotOf([p]), stylesheets };
      return a.run(s, parsePages(s.pages, stylesheetTexts(s))).status;
    };
    assert.equal(analyse(imgUnsized, logo('<link rel="stylesheet" href="/css/site.css">')), 'pass');
    assert.equal(analyse(imgUnsized, logo('<link rel="stylesheet" href="/css/other.css">')), 'fail');
    assert.equal(analyse(imgUnsized, logo('<link rel="stylesheet" href="/css/site.css" media="print">')), 'fail');
    const toggle = '<input type="checkbox" class="toggle">';
    assert.equal(
      analyse(formLabelMissing, page(`<link rel="stylesheet" href="css/site.css">${toggle}`, { path: '/' })),
      'not_applicable',
    );
    assert.equal(analyse(formLabelMissing, page(toggle)), 'fail');
  });

  it('a placeholder names a field at info level; an empty placeholder does not', () => {
    const search = run(formLabelMissing, [page('<input type="search" name="q" placeholder="Search the site">')]);
    assert.equal(search.status, 'pass');
    assert.deepEqual(
      search.findings.map((f) => f.severity),
      ['info'],
    );
    assert.match(search.findings[0]!.message, /named only by its placeholder/);
    assert.equal(status(formLabelMissing, '<input type="search" name="q" placeholder="  ">'), 'fail');
  });

  it('crawlable anchors follow Lighthouse: javascript:void(0) and href-less anchors with handlers fail, empty hrefs pass', () => {
    for (const bad of ['<a href="javascript:void(0)">Menu</a>', '<a onclick="openMenu()">Menu</a>'])
      assert.equal(status(anchorNotCrawlable, bad), 'fail', bad);
    for (const fine of [
      '<a role="button" href="javascript:void(0)">Toggle</a>',
      '<a href="">Home</a>',
      '<a class="anchor-target">Menu</a>',
      '<a name="top"></a>',
      '<a href="mailto:hi@example.com">Mail</a>',
      '<a href="/about">About</a>',
    ])
      assert.equal(status(anchorNotCrawlable, fine), 'pass', fine);
  });

  it('generic link texts are recognised in every covered language; descriptive texts pass', () => {
    assert.ok(
      ['en', 'es', 'fr', 'de', 'it', 'pt', 'ja', 'zh', 'ko', 'nl', 'pl', 'ru', 'sv', 'tr', 'ta', 'fa'].every((l) =>
        GENERIC_LINK_TEXT_LANGUAGES.includes(l),
      ),
    );
    for (const text of [
      'Leer más',
      'En savoir plus',
      'Weiterlesen »',
      'Leggi di più',
      'Saiba mais',
      'ここをクリック',
      '点击这里',
      '더보기',
      'Lees meer',
      'Czytaj więcej',
      'Подробнее…',
      'Läs mer',
      'Devamını oku',
      'மேலும் படிக்க',
      'ادامه مطلب',
    ])
      assert.equal(status(linkTextGeneric, `<a href="/x">${text}</a>`), 'fail', text);
    assert.equal(
      status(linkTextGeneric, '<a href="/x">Leer el informe anual 2025</a><a href="/y">料金プラン</a>'),
      'pass',
    );
  });

  it("generic link texts cover every language the installed Lighthouse's link-text audit has a list for", () => {
    // Read from Lighthouse itself (its lists are not exported): a language it adds shows here.
    const source = fs.readFileSync(require.resolve('lighthouse/core/audits/seo/link-text.js'), 'utf8');
    const theirs = [...source.matchAll(/^ {2}'([a-z]{2})': new Set\(\[/gm)].map((m) => m[1]!);
    assert.ok(theirs.length >= 9, `${theirs.length} languages read from Lighthouse`);
    assert.deepEqual(
      theirs.filter((l) => !GENERIC_LINK_TEXT_LANGUAGES.includes(l)),
      [],
    );
  });

  it('sitemap entries must be absolute URLs of the site', () => {
    const fetch = (locs: string[]) => ({
      url: `${ORIGIN}/sitemap.xml`,
      source: 'default' as const,
      status: 200,
      root: 'urlset',
      locCount: locs.length,
      locs,
    });
    assert.equal(
      run(sitemapInvalid, [page('')], { sitemaps: [fetch([`${ORIGIN}/`, `https://www.example.com/a`])] }).status,
      'pass',
    );
    const none = run(sitemapInvalid, [page('')], { sitemaps: [fetch([`${ORIGIN}/`, 'None', 'https://other.org/x'])] });
    assert.equal(none.status, 'fail');
    assert.match(none.findings[0]!.message, /2 entries that are not absolute URLs of the site/);
    assert.match(none.findings[0]!.evidence, /<loc>None<\/loc> <loc>https:\/\/other\.org\/x<\/loc>/);
  });

  it('one broken URL is one problem: a linked 4xx page is SEO_BROKEN_LINK, an unlinked one SEO_HTTP_STATUS_ERROR', () => {
    const home = page('', { path: '/', depth: 0 });
    const linked = page('', { path: '/gone', status: 404, foundOn: [`${ORIGIN}/`, `${ORIGIN}/a`] });
    assert.equal(run(brokenLink, [home, linked]).status, 'fail');
    assert.equal(run(httpStatusError, [home, linked]).findings.length, 0);
    const unlinked = page('', { path: '/old', status: 410 });
    assert.equal(run(httpStatusError, [home, unlinked]).status, 'fail');
    assert.equal(run(brokenLink, [home, unlinked]).status, 'not_applicable');
  });

  it('an /index.html alias without a canonical link is reported with the hint; with one it passes', () => {
    const about = (head = '') =>
      page(head ? `<link rel="canonical" href="${ORIGIN}/about/">` : '', { path: '/about/' });
    const indexAliases = [{ url: `${ORIGIN}/about/index.html`, aliasOf: `${ORIGIN}/about/`, foundOn: [`${ORIGIN}/`] }];
    const out = run(canonicalInvalid, [about()], { indexAliases });
    assert.equal(out.status, 'warn');
    assert.match(
      out.findings[0]!.evidence,
      /about\/index\.html = .*add <link rel="canonical" href="https:\/\/example\.com\/about\/">/,
    );
    assert.equal(run(canonicalInvalid, [about('canonical')], { indexAliases }).status, 'pass');
    assert.equal(run(canonicalInvalid, [about()]).status, 'not_applicable');
  });

  it('title lengths are display widths: wide characters count 2', () => {
    assert.equal(displayWidth('日本語abc'), 9);
    assert.equal(displayWidth('한국어'), 6);
    assert.equal(displayWidth('café'), 4);
    const titled = (t: string) => ({
      ...page(''),
      body: `<!DOCTYPE html><html><head><title>${t}</title></head><body></body></html>`,
    });
    assert.equal(run(titleDuplicate, [titled('東京の小さなパン屋さんの季節のおすすめ')]).status, 'pass'); // 19 wide = 38
    assert.equal(run(titleDuplicate, [titled('東京のパン屋')]).status, 'warn'); // 12 wide: too short
    const long = run(titleDuplicate, [
      titled('東京の小さなパン屋さんが毎朝焼き上げる季節の果物を使ったおすすめのパン'),
    ]);
    assert.match(long.findings[0]!.message, /70 characters wide \(over 60/);
  });

  it('findings name every affected page, beyond any evidence cap', () => {
    const pages = Array.from({ length: 150 }, () => page('<img src="/same.png" alt="">'));
    const out = run(imgUnsized, pages);
    assert.equal(out.findings.length, 1);
    assert.equal(out.findings[0]!.urls.length, 150);
    assert.match(out.findings[0]!.message, /Found at 150 URLs\.$/);
  });

  it('recommendations render code marked with backticks as code spans', () => {
    assert.deepEqual(codeSpans('Remove `noindex` from the `<meta>` tag.'), [
      { text: 'Remove ', code: false },
      { text: 'noindex', code: true },
      { text: ' from the ', code: false },
      { text: '<meta>', code: true },
      { text: ' tag.', code: false },
    ]);
    assert.deepEqual(codeSpans('An unpaired ` stays text.'), [{ text: 'An unpaired ` stays text.', code: false }]);
  });

  it('the PDF report prints those recommendations without backticks', async function () {
    this.timeout(30_000);
    const audit = syntheticAudit(syntheticInput('https://www.shop-7.co.uk'));
    assert.ok(
      audit.findings.some((f) => f.recommendation.includes('`')),
      'the sample marks code with backticks',
    );
    const { text } = await extract(await renderAuditReport(audit, null, { generatedAt: new Date(0) }));
    assert.ok(!text.includes('`'));
    assert.match(flat(text), /Send Strict-Transport-Security: max-age=31536000; includeSubDomains on/);
  });
});
