/**
 * The crawler against real HTTP servers on loopback only (127.0.0.1, and 127.0.0.2 as "another
 * site"). Every socket undici opens is recorded and checked to be loopback. No DNS: all hosts are
 * IP literals and lookupDns / probeTls are off.
 */
import assert from 'node:assert/strict';
import { selfSignedCertificate } from '../support/certificates';
import { useLoopbackGuard } from '../support/loopback-guard';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { crawlSite, parseSitemapXml, retryAfterMs, type CrawlProgress } from '../../src/crawl/crawler';
import { AuditFailure } from '../../workflows/contracts';
import { parseCidrList } from '../../src/outbound/policy';
import type { CrawlSnapshot } from '../../src/analyzers/snapshot';

const LOOPBACK = parseCidrList('127.0.0.0/8');
const UA = 'DomainAuditBot/0.1 (+https://domain-audit.example/bot)';

type Reply = { status?: number; headers?: Record<string, string>; body?: string | Buffer; encode?: 'gzip' | 'br' };
type Handler = (req: http.IncomingMessage, hits: number) => Reply | undefined;

interface Fixture {
  origin: string;
  port: number;
  requests: Array<{ method: string; url: string; ua: string; ae: string; origin?: string }>;
  close(): Promise<void>;
}

async function serve(routes: Record<string, Reply | Handler>, host = '127.0.0.1'): Promise<Fixture> {
  const requests: Fixture['requests'] = [];
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    requests.push({
      method: req.method ?? '',
      url,
      ua: String(req.headers['user-agent']),
      ae: String(req.headers['accept-encoding'] ?? ''),
      origin: req.headers.origin,
    });
    const n = (hits.get(url) ?? 0) + 1;
    hits.set(url, n);
    const route = routes[url];
    const reply = typeof route === 'function' ? route(req, n) : route;
    if (!reply) {
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    let body: Buffer = Buffer.from(reply.body ?? '');
    const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8', ...reply.headers };
    if (reply.encode === 'gzip') {
      body = zlib.gzipSync(body);
      headers['content-encoding'] = 'gzip';
    } else if (reply.encode === 'br') {
      body = zlib.brotliCompressSync(body);
      headers['content-encoding'] = 'br';
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const page = (title: string, links: string[], extra = '') =>
  `<!doctype html><html lang="en"><head><title>${title}</title>${extra}</head><body><h1>${title}</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`;

function crawl(
  origin: string,
  pageBudget: number,
  extra: Partial<Parameters<typeof crawlSite>[0]> = {},
): Promise<CrawlSnapshot> {
  return crawlSite({ origin, pageBudget, allow: LOOPBACK, userAgent: UA, lookupDns: false, probeTls: false, ...extra });
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<AuditFailure> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof AuditFailure, `expected AuditFailure, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected AuditFailure ${code}`);
}

const paths = (snap: CrawlSnapshot) => snap.pages.map((p) => new URL(p.url).pathname);

describe('crawlSite (loopback fixtures)', function () {
  this.timeout(30_000);

  useLoopbackGuard();

  describe('a small site', () => {
    let site: Fixture;
    let other: Fixture;
    let snap: CrawlSnapshot;
    let progress: CrawlProgress[];

    before(async () => {
      other = await serve({ '/': { body: page('Elsewhere', []) } }, '127.0.0.2');
      const offsite = `${other.origin}/`;
      let origin = '';
      site = await serve({
        '/robots.txt': () => ({
          headers: { 'content-type': 'text/plain' },
          body: `User-agent: *\nDisallow: /private\n\nSitemap: ${origin}/sitemap-index.xml\n`,
        }),
        '/sitemap-index.xml': () => ({
          headers: { 'content-type': 'application/xml' },
          body: `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml</loc></sitemap></sitemapindex>`,
        }),
        '/sitemap-pages.xml': () => ({
          headers: { 'content-type': 'application/xml' },
          encode: 'gzip',
          body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${origin}/</loc></url><url><loc>${origin}/a</loc></url><url><loc>${origin}/private/x</loc></url><url><loc>${origin}/orphan</loc></url></urlset>`,
        }),
        '/': {
          body:
            page(
              'Home',
              ['/a', '/b', '/c', '/private/x', offsite, '/old', 'mailto:x@example.com', '#top'],
              '<link rel="stylesheet" href="/s.css"><script src="/app.js"></script>',
            ) + '<img src="/logo.png" alt="">',
        },
        '/a': { encode: 'gzip', body: page('Page A', ['/a1', '/b', '/']) },
        '/b': { encode: 'br', body: page('Page B', ['/b1', '/a']) },
        '/c': { body: page('Page C', ['/c1', '/missing']) },
        '/old': { status: 301, headers: { location: '/older' } },
        '/older': { status: 302, headers: { location: '/d' } },
        '/d': { body: page('Page D', ['/']) },
        '/a1': { body: page('A1', []) },
        '/b1': { body: page('B1', []) },
        '/c1': { body: page('C1', []) },
        '/orphan': { body: page('Orphan', []) },
        '/s.css': {
          headers: { 'content-type': 'text/css', 'cache-control': 'max-age=31536000' },
          body: 'body{color:red}',
        },
        '/app.js': {
          headers: { 'content-type': 'text/javascript' },
          encode: 'gzip',
          body: 'console.log(1);'.repeat(100),
        },
        '/logo.png': { status: 404, body: 'nope' },
        '/llms.txt': { headers: { 'content-type': 'text/plain' }, body: '# Site\n> about' },
      });
      origin = site.origin;
      progress = [];
      snap = await crawl(site.origin, 50, { onProgress: (p) => progress.push(p) });
    });
    after(async () => {
      await site.close();
      await other.close();
    });

    it('crawls breadth-first, home first, depths in order', () => {
      // The sitemap-only page comes last, after every linked page, at no depth.
      assert.deepEqual(paths(snap), ['/', '/a', '/b', '/c', '/old', '/a1', '/b1', '/c1', '/missing', '/orphan']);
      const depths = snap.pages.map((p) => p.depth);
      assert.deepEqual(depths, [0, 1, 1, 1, 1, 2, 2, 2, 2, null]);
      assert.equal(snap.origin, site.origin);
      assert.ok(snap.observedAt && !Number.isNaN(Date.parse(snap.observedAt)));
      const crawling = progress.filter((p) => p.phase === 'crawling');
      assert.equal(crawling.length, snap.pages.length);
      assert.deepEqual(
        crawling.map((p) => p.pagesCrawled),
        snap.pages.map((_, i) => i + 1),
      );
      assert.ok(crawling.every((p) => p.pagesDiscovered >= p.pagesCrawled));
    });

    it('records foundOn of pages', () => {
      const b = snap.pages.find((p) => p.url === `${site.origin}/b`)!;
      assert.deepEqual([...b.foundOn!].sort(), [`${site.origin}/`, `${site.origin}/a`]);
      const home = snap.pages[0]!;
      assert.equal(home.foundOn, undefined);
      const missing = snap.pages.find((p) => p.url.endsWith('/missing'))!;
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.foundOn, [`${site.origin}/c`]);
    });

    it('skips and records URLs disallowed by robots.txt', () => {
      assert.ok(!site.requests.some((r) => r.url.startsWith('/private')));
      assert.deepEqual(snap.robotsDisallowed, [
        { url: `${site.origin}/private/x`, depth: 1, foundOn: [`${site.origin}/`], linkedFrom: 1, inSitemap: true },
      ]);
      assert.equal(snap.robots.kind, 'fetched');
    });

    it('does not crawl another registrable domain: its link target is checked once (HEAD), its links never followed', () => {
      assert.deepEqual(
        other.requests.map((r) => r.method),
        ['HEAD'],
      );
      assert.ok(!snap.pages.some((p) => p.url.startsWith(other.origin)));
      const external = snap.linkChecks!.filter((c) => c.url.startsWith(other.origin));
      assert.equal(external.length, 1);
      assert.equal(external[0]!.linkedFrom, 1);
    });

    it('records redirect chains', () => {
      const old = snap.pages.find((p) => p.url.endsWith('/old'))!;
      assert.equal(old.finalUrl, `${site.origin}/d`);
      assert.equal(old.status, 200);
      assert.deepEqual(old.redirectChain, [
        { url: `${site.origin}/old`, status: 301, location: '/older' },
        { url: `${site.origin}/older`, status: 302, location: '/d' },
      ]);
      // /d reached by redirect is not crawled a second time
      assert.equal(
        site.requests.filter((r) => r.url === '/d' && r.method === 'GET' && r.origin === undefined).length,
        1,
      );
    });

    it('decodes gzip and br bodies, sending an honest UA and accept-encoding', () => {
      const a = snap.pages.find((p) => p.url.endsWith('/a'))!;
      const b = snap.pages.find((p) => p.url.endsWith('/b'))!;
      assert.match(a.body!, /<title>Page A<\/title>/);
      assert.match(b.body!, /<title>Page B<\/title>/);
      assert.equal(a.headers['content-encoding'], 'gzip');
      assert.ok(a.bytes < Buffer.byteLength(a.body!) + 50);
      for (const r of site.requests) {
        assert.equal(r.ua, UA);
        assert.equal(r.ae, 'br, gzip');
      }
    });

    it('follows robots.txt sitemaps and sitemap indexes, plus /sitemap.xml', () => {
      const sm = snap.sitemaps!;
      const byUrl = new Map(sm.map((s) => [new URL(s.url).pathname, s]));
      assert.equal(byUrl.get('/sitemap-index.xml')!.source, 'robots');
      assert.equal(byUrl.get('/sitemap-index.xml')!.root, 'sitemapindex');
      const child = byUrl.get('/sitemap-pages.xml')!;
      assert.equal(child.source, 'index');
      assert.equal(child.status, 200);
      assert.equal(child.root, 'urlset');
      assert.equal(child.locCount, 4);
      assert.equal(child.xmlError, undefined);
      assert.equal(byUrl.get('/sitemap.xml')!.source, 'default');
      assert.equal(byUrl.get('/sitemap.xml')!.status, 404);
    });

    it('collects subresources and link-checks uncrawled targets', () => {
      const res = new Map(snap.resources!.map((r) => [new URL(r.url).pathname, r]));
      assert.equal(res.get('/s.css')!.kind, 'stylesheet');
      assert.equal(res.get('/s.css')!.headers['cache-control'], 'max-age=31536000');
      assert.equal(res.get('/app.js')!.kind, 'script');
      assert.equal(res.get('/app.js')!.headers['content-encoding'], 'gzip');
      assert.equal(res.get('/logo.png')!.kind, 'image');
      assert.deepEqual(res.get('/logo.png')!.foundOn, [`${site.origin}/`]);
      // The site's own stylesheet text is kept for the analyzers, decoded.
      assert.deepEqual(snap.stylesheets, [{ url: `${site.origin}/s.css`, text: 'body{color:red}' }]);
      const checks = new Map(snap.linkChecks!.map((c) => [new URL(c.url).pathname, c]));
      assert.deepEqual(checks.get('/logo.png'), {
        url: `${site.origin}/logo.png`,
        status: 404,
        linkedFrom: 1,
        foundOn: [`${site.origin}/`],
        kind: 'resource',
      });
      // listed only in the sitemap: crawled after the linked pages, at no depth, linked from nowhere
      assert.equal(checks.get('/orphan'), undefined);
      const orphan = snap.pages.find((p) => new URL(p.url).pathname === '/orphan')!;
      assert.equal(orphan.status, 200);
      assert.equal(orphan.depth, null);
      assert.equal(orphan.linkedFrom, 0);
      assert.equal(snap.pages.at(-1), orphan);
    });

    it('records the side probes: 404 probe, llms.txt, security.txt, CORS', () => {
      const nf = snap.notFoundProbe!;
      assert.equal(nf.kind, 'fetched');
      if (nf.kind === 'fetched') {
        assert.equal(nf.status, 404);
        assert.match(nf.url, /\/da-404-check-[0-9a-f]{16}$/);
        assert.match(nf.body!, /Not found/);
      }
      assert.equal(snap.llmsTxt!.kind, 'fetched');
      if (snap.llmsTxt!.kind === 'fetched') {
        assert.equal(snap.llmsTxt!.status, 200);
        assert.equal(snap.llmsTxt!.bodyStart, '# Site\n> about');
      }
      assert.equal(snap.securityTxt!.kind, 'fetched');
      if (snap.securityTxt!.kind === 'fetched') assert.equal(snap.securityTxt!.status, 404);
      assert.ok(snap.corsProbe!.ok);
      if (snap.corsProbe!.ok) assert.equal(snap.corsProbe!.facts.originSent, 'https://audit-cors-probe.invalid');
      assert.ok(site.requests.some((r) => r.url === '/' && r.origin === 'https://audit-cors-probe.invalid'));
      // http origin: no https redirect / TLS / DNS facts
      assert.equal(snap.httpsRedirect, undefined);
      assert.equal(snap.tls, undefined);
      assert.equal(snap.dns, undefined);
    });
  });

  describe('limits', () => {
    it('respects the page budget (3 of a 10-page site)', async () => {
      const routes: Record<string, Reply> = {
        '/': {
          body: page(
            'Home',
            Array.from({ length: 9 }, (_, i) => `/p${i + 1}`),
          ),
        },
      };
      for (let i = 1; i <= 9; i++) routes[`/p${i}`] = { body: page(`P${i}`, ['/']) };
      const site = await serve(routes);
      try {
        const snap = await crawl(site.origin, 3);
        assert.deepEqual(paths(snap), ['/', '/p1', '/p2']);
        const getPages = site.requests.filter((r) => r.method === 'GET' && /^\/p\d$/.test(r.url));
        assert.equal(getPages.length, 2);
        // the rest are status-checked (HEAD), not crawled
        const checked = snap
          .linkChecks!.filter((c) => c.kind === 'page')
          .map((c) => new URL(c.url).pathname)
          .sort();
        assert.deepEqual(checked, ['/p3', '/p4', '/p5', '/p6', '/p7', '/p8', '/p9']);
        assert.equal(snap.budgetExhausted, true);
        assert.equal(snap.pagesDiscovered, 10);
      } finally {
        await site.close();
      }
    });

    it('checks another site at most 2 requests at a time, and no more targets than EXTERNAL_CHECK_BUDGET', async () => {
      let inFlight = 0;
      let most = 0;
      const external = http.createServer((_req, res) => {
        inFlight++;
        most = Math.max(most, inFlight);
        setTimeout(() => {
          inFlight--;
          res.writeHead(200, { 'content-type': 'text/html' }).end();
        }, 100);
      });
      await new Promise<void>((resolve) => external.listen(0, '127.0.0.3', resolve));
      const elsewhere = `http://127.0.0.3:${(external.address() as AddressInfo).port}`;
      const links = Array.from({ length: 10 }, (_, i) => `${elsewhere}/t${i}`);
      const site = await serve({ '/': { body: page('Home', links) } });
      try {
        const all = await crawl(site.origin, 10);
        assert.equal(all.linkChecks!.filter((c) => c.url.startsWith(elsewhere)).length, 10);
        assert.equal(most, 2, 'two requests in flight to the external host, never more');
        const capped = await crawl(site.origin, 10, { externalCheckBudget: 3 });
        assert.deepEqual(
          capped.linkChecks!.filter((c) => c.url.startsWith(elsewhere)).map((c) => c.url),
          links.slice(0, 3),
        );
      } finally {
        await site.close();
        external.closeAllConnections();
        await new Promise((resolve) => external.close(resolve));
      }
    });

    it('spends the budget only on pages answering HTML: redirects and errors are crawled for free', async () => {
      const links = ['/gone', '/broken', '/moved', '/p1', '/p2', '/p3'];
      const routes: Record<string, Reply> = {
        '/': { body: page('Home', links) },
        '/gone': { status: 404, body: 'gone' },
        '/broken': { status: 500, body: 'oops' },
        '/moved': { status: 301, headers: { location: '/p1' }, body: '' },
      };
      for (let i = 1; i <= 3; i++) routes[`/p${i}`] = { body: page(`P${i}`, []) };
      const site = await serve(routes);
      try {
        const snap = await crawl(site.origin, 3);
        // Home, /p1 and /p2 spend the budget of 3; the 404 and the 500 spend none, and the redirect to
        // /p1 spends it once with /p1 itself.
        assert.deepEqual(paths(snap), ['/', '/gone', '/broken', '/moved', '/p1', '/p2']);
        assert.deepEqual(new Set(snap.pages.filter((p) => p.status === 200).map((p) => p.finalUrl)).size, 3);
        assert.equal(snap.budgetExhausted, true);
        assert.deepEqual(
          snap.linkChecks!.filter((c) => c.kind === 'page').map((c) => new URL(c.url).pathname),
          ['/p3'],
        );
      } finally {
        await site.close();
      }
    });

    it('has no depth limit: a chain of links 12 clicks deep is crawled to its end, breadth first', async () => {
      const routes: Record<string, Reply> = { '/': { body: page('Home', ['/d1']) } };
      for (let i = 1; i <= 12; i++) routes[`/d${i}`] = { body: page(`D${i}`, i < 12 ? [`/d${i + 1}`] : []) };
      const site = await serve(routes);
      try {
        const snap = await crawl(site.origin, 100);
        assert.deepEqual(paths(snap), ['/', ...Array.from({ length: 12 }, (_, i) => `/d${i + 1}`)]);
        assert.deepEqual(
          snap.pages.map((p) => p.depth),
          Array.from({ length: 13 }, (_, i) => i),
        );
        assert.equal(snap.budgetExhausted, false);
        assert.equal(snap.pagesDiscovered, 13);
      } finally {
        await site.close();
      }
    });
  });

  describe('robots.txt and failures', () => {
    it('fails with robots_disallowed when the home page is disallowed', async () => {
      const site = await serve({
        '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: DomainAuditBot\nDisallow: /\n' },
        '/': { body: page('Home', []) },
      });
      try {
        await rejectsWith(crawl(site.origin, 10), 'robots_disallowed');
        assert.ok(!site.requests.some((r) => r.url === '/'));
      } finally {
        await site.close();
      }
    });

    it('allows everything when robots.txt answers 4xx', async () => {
      const site = await serve({
        '/robots.txt': { status: 403, body: 'no' },
        '/': { body: page('Home', ['/x']) },
        '/x': { body: page('X', []) },
      });
      try {
        const snap = await crawl(site.origin, 10);
        assert.deepEqual(paths(snap), ['/', '/x']);
      } finally {
        await site.close();
      }
    });

    it('fails with domain_unreachable when robots.txt answers 503', async () => {
      const site = await serve({
        '/robots.txt': { status: 503, headers: { 'retry-after': '0' }, body: 'down' },
        '/': { body: page('Home', []) },
      });
      try {
        await rejectsWith(crawl(site.origin, 10), 'domain_unreachable');
        assert.equal(site.requests.filter((r) => r.url === '/robots.txt').length, 3);
        assert.ok(!site.requests.some((r) => r.url === '/'));
      } finally {
        await site.close();
      }
    });

    it('fails with domain_unreachable when nothing listens', async () => {
      const site = await serve({});
      const origin = site.origin;
      await site.close();
      await rejectsWith(crawl(origin, 10), 'domain_unreachable');
    });

    it('backs off on 429 with Retry-After: 1 and then crawls', async () => {
      const site = await serve({
        '/': { body: page('Home', ['/busy']) },
        '/busy': (_req, n) =>
          n === 1 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { body: page('Busy', []) },
      });
      try {
        const t0 = Date.now();
        const snap = await crawl(site.origin, 10);
        const busy = snap.pages.find((p) => p.url.endsWith('/busy'))!;
        assert.equal(busy.status, 200);
        assert.match(busy.body!, /Busy/);
        const tries = site.requests.filter((r) => r.url === '/busy');
        assert.equal(tries.length, 2);
        assert.ok(Date.now() - t0 >= 900, 'waited for Retry-After');
      } finally {
        await site.close();
      }
    });

    it('fails with target_rate_limited when every request answers 429', async () => {
      const always429: Handler = () => ({ status: 429, headers: { 'retry-after': '0' }, body: 'slow down' });
      const site = await serve({ '/robots.txt': always429, '/': always429 });
      try {
        await rejectsWith(crawl(site.origin, 10), 'target_rate_limited');
        assert.equal(site.requests.filter((r) => r.url === '/robots.txt').length, 3);
      } finally {
        await site.close();
      }
    });

    it('fails with target_rate_limited when the home page keeps answering 429', async () => {
      const site = await serve({
        '/robots.txt': { status: 404 },
        '/': { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' },
      });
      try {
        await rejectsWith(crawl(site.origin, 10), 'target_rate_limited');
        assert.equal(site.requests.filter((r) => r.url === '/').length, 3);
      } finally {
        await site.close();
      }
    });

    it('fails with target_rate_limited early when most pages keep answering 429', async () => {
      const routes: Record<string, Reply | Handler> = {
        '/': {
          body: page(
            'Home',
            Array.from({ length: 30 }, (_, i) => `/s${i}`),
          ),
        },
      };
      for (let i = 0; i < 30; i++) routes[`/s${i}`] = { status: 429, headers: { 'retry-after': '0' }, body: 'wait' };
      const site = await serve(routes);
      try {
        await rejectsWith(crawl(site.origin, 50), 'target_rate_limited');
        await new Promise((r) => setTimeout(r, 100)); // let in-flight requests land
        const tried = site.requests.filter((r) => /^\/s\d+$/.test(r.url));
        assert.ok(tried.length < 30 * 3, `gave up early (${tried.length} requests)`);
        assert.equal(tried.length % 3, 0, 'each URL tried 3 times');
      } finally {
        await site.close();
      }
    });

    it('honours Crawl-delay with one request in flight', async () => {
      let inFlight = 0;
      let maxInFlight = 0;
      const slow: Handler = () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        setTimeout(() => inFlight--, 0);
        return { body: page('P', []) };
      };
      const site = await serve({
        '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nCrawl-delay: 0.2\n' },
        '/': { body: page('Home', ['/1', '/2', '/3']) },
        '/1': slow,
        '/2': slow,
        '/3': slow,
      });
      try {
        const t0 = Date.now();
        const snap = await crawl(site.origin, 10);
        assert.equal(snap.pages.length, 4);
        // robots + home + 3 pages + side probes, all spaced 200 ms apart on the origin host
        assert.ok(Date.now() - t0 >= 1_000, `crawl-delay not honoured (${Date.now() - t0} ms)`);
        assert.equal(maxInFlight, 1);
      } finally {
        await site.close();
      }
    });

    it('stops promptly when the signal aborts, without waiting out a Retry-After', async () => {
      const retryAfterSeconds = 10; // the most the crawler honours (CRAWL_LIMITS.retryAfterCapMs)
      let askedToWait: () => void = () => undefined;
      const waitAsked = new Promise<void>((resolve) => (askedToWait = resolve));
      const wait: Handler = () => {
        askedToWait();
        return { status: 429, headers: { 'retry-after': String(retryAfterSeconds) }, body: 'wait' };
      };
      const routes: Record<string, Reply | Handler> = {
        '/': {
          body: page(
            'Home',
            Array.from({ length: 20 }, (_, i) => `/s${i}`),
          ),
        },
      };
      for (let i = 0; i < 20; i++) routes[`/s${i}`] = wait;
      const site = await serve(routes);
      let retryAfterEnded: NodeJS.Timeout | undefined;
      try {
        const controller = new AbortController();
        const crawling = crawl(site.origin, 50, { signal: controller.signal }).then(
          () => 'finished',
          (err: unknown) => err,
        );
        await waitAsked;
        // Started as the first 429 leaves, before the crawl's own wait starts: waiting the Retry-After out
        // would end after this fires. (An ordering against the wait asked for, not a speed bound.)
        const waitedOut = new Promise<string>(
          (resolve) => (retryAfterEnded = setTimeout(() => resolve('waited out'), retryAfterSeconds * 1000)),
        );
        await new Promise((resolve) => setTimeout(resolve, 200)); // into its wait
        controller.abort(new Error('activity cancelled'));
        const first = await Promise.race([crawling, waitedOut]);
        assert.ok(first instanceof Error && /activity cancelled/.test(first.message), String(first));
        const asked = site.requests.filter((r) => /^\/s\d+$/.test(r.url)).map((r) => r.url);
        assert.equal(new Set(asked).size, asked.length, `no URL asked again: ${asked.join(' ')}`);
      } finally {
        clearTimeout(retryAfterEnded);
        await site.close();
      }
    });
  });

  describe('an https origin (self-signed, loopback)', () => {
    let dir = '';
    let server: https.Server;
    let origin = '';
    let plain: http.Server | null = null;

    before(async function () {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crawler-tls-'));
      if (!selfSignedCertificate(dir)) this.skip(); // no openssl CLI on this machine
      server = https.createServer(
        { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
        (req, res) => {
          if (req.url === '/')
            res
              .writeHead(200, { 'content-type': 'text/html', 'strict-transport-security': 'max-age=63072000' })
              .end(page('Secure home', []));
          else res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
        },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // The http:// probe goes to port 80 of the same (loopback) host; serve a redirect there when we may bind it.
      const p80 = http.createServer((_req, res) => res.writeHead(301, { location: `${origin}/` }).end());
      const bound = await new Promise<boolean>((resolve) => {
        p80.once('error', () => resolve(false));
        p80.listen(80, '127.0.0.1', () => resolve(true));
      });
      plain = bound ? p80 : null;
    });
    after(async () => {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      if (plain) await new Promise<void>((resolve) => plain!.close(() => resolve()));
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('records TLS facts and the http:// → https:// probe', async () => {
      const snap = await crawl(origin, 5, { probeTls: true });
      assert.equal(snap.pages[0]!.status, 200);
      assert.ok(snap.tls?.ok, JSON.stringify(snap.tls));
      if (snap.tls?.ok) {
        assert.equal(snap.tls.facts.httpsAvailable, true);
        assert.equal(snap.tls.facts.certificate?.trusted, false); // self-signed
        assert.equal(snap.tls.facts.certificate?.hostnameMatches, true);
      }
      assert.ok(snap.httpsRedirect, 'httpsRedirect recorded for https origins');
      if (plain) {
        assert.ok(snap.httpsRedirect.ok);
        if (snap.httpsRedirect.ok) {
          assert.equal(snap.httpsRedirect.facts.httpUrl, 'http://127.0.0.1/');
          assert.equal(snap.httpsRedirect.facts.sameHostHttpsFirst, true);
          assert.equal(snap.httpsRedirect.facts.chain[0]!.status, 301);
        }
      } else if (!snap.httpsRedirect.ok) {
        assert.match(snap.httpsRedirect.error, /http:\/\/127\.0\.0\.1\//);
      }
      assert.equal(snap.dns, undefined); // IP literal: no DNS facts
    });
  });

  describe('one URL, one record', () => {
    it('does not crawl /index.html aliases again and counts every page linking to a URL', async () => {
      const pages = Array.from({ length: 12 }, (_, i) => `/p${i}`);
      const routes: Record<string, Reply> = {
        '/': { body: page('Home', [...pages, '/docs/', '/docs/index.html']) },
        '/docs/': { body: page('Docs', ['/docs/index.html']) },
      };
      for (const p of pages) routes[p] = { body: page(p, ['/gone', '/', '/docs/index.html']) };
      const site = await serve(routes);
      try {
        const snap = await crawl(site.origin, 20);
        assert.ok(!site.requests.some((r) => r.url === '/docs/index.html'));
        assert.deepEqual(snap.indexAliases, [
          {
            url: `${site.origin}/docs/index.html`,
            aliasOf: `${site.origin}/docs/`,
            foundOn: [`${site.origin}/`, ...pages.slice(0, 9).map((p) => `${site.origin}${p}`)], // crawl order
            linkedFrom: 14,
          },
        ]);
        const gone = snap.pages.find((p) => p.url.endsWith('/gone'))!;
        assert.equal(gone.status, 404);
        assert.equal(gone.foundOn!.length, 10); // the evidence is capped
        assert.equal(gone.linkedFrom, 12); // the count is not
      } finally {
        await site.close();
      }
    });

    it('counts the referrers a page gains after it was crawled ("linked from N pages" exact)', async () => {
      const site = await serve({
        '/': { body: page('Home', ['/b', '/a']) },
        '/a': { body: page('A', ['/b', '/c']) },
        '/b': { body: page('B', []) },
        '/c': { body: page('C', ['/b']) },
      });
      try {
        const snap = await crawl(site.origin, 20);
        const b = snap.pages.find((p) => p.url === `${site.origin}/b`)!;
        assert.deepEqual(b.foundOn, [`${site.origin}/`, `${site.origin}/a`, `${site.origin}/c`]);
        assert.equal(b.linkedFrom, 3);
      } finally {
        await site.close();
      }
    });
  });

  describe('a third-party host that does not resolve', () => {
    it('is looked up once per crawl, however many resources and links point at it', async () => {
      const dead = 'cdn.dead-host.invalid';
      const images = [1, 2, 3, 4, 5, 6].map(
        (i) => `<img src="http://${dead}/img${i}.png" alt="" width="1" height="1">`,
      );
      const site = await serve({
        '/': { body: page('Home', ['/about'], images.join('')) },
        '/about': { body: page('About', [], images.join('')) },
      });
      const lookups: string[] = [];
      try {
        const snap = await crawl(site.origin, 5, {
          // A stub resolver that finds no name, as a resolver answers for a dead host.
          lookup: (hostname) => {
            lookups.push(hostname);
            return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
          },
        });
        assert.deepEqual(lookups, [dead]);
        const unreachable = snap.linkChecks!.filter((c) => c.url.startsWith(`http://${dead}/`));
        assert.equal(unreachable.length, 6); // each image is still reported unreachable
        assert.ok(unreachable.every((c) => c.status === null));
      } finally {
        await site.close();
      }
    });
  });

  describe('helpers', () => {
    it('parses sitemaps and flags malformed XML', () => {
      const ok = parseSitemapXml(
        '<?xml version="1.0"?><urlset><url><loc> https://a.example/x </loc></url></urlset>',
        10,
      );
      assert.deepEqual(ok, { root: 'urlset', locCount: 1, locs: ['https://a.example/x'] });
      const bad = parseSitemapXml('<urlset><url><loc>https://a.example/</loc></urlset>', 10);
      assert.equal(bad.root, 'urlset');
      assert.ok(bad.xmlError);
      const html = parseSitemapXml('<!doctype html><html><body>hi</body></html>', 10);
      assert.equal(html.root, 'html');
    });

    it('reads Retry-After (seconds or date), capped at 10 s', () => {
      assert.equal(retryAfterMs('1', 500), 1_000);
      assert.equal(retryAfterMs('120', 500), 10_000);
      assert.equal(retryAfterMs(undefined, 500), 500);
      assert.equal(retryAfterMs(new Date(5_000).toUTCString(), 500, 2_000), 3_000);
    });
  });
});
