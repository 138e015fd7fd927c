import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site whose page /a is reached three times: linked directly, through /old, which redirects to it
 * and is linked beside it (the same level, so the same step of the durable crawl), and through /moved,
 * which redirects to it too and is linked only from /t, two clicks deeper (a later step). Twelve other
 * pages link to the same targets as /a, so each target has 13 referring pages: more than the crawl
 * keeps by name, where a page counted twice cannot be told from another page. They also link to
 * /index.html, the home page's other URL. The sitemap lists that alias and /docs/index.html, the
 * alias of /docs/, which only the home page links: aliases of known pages, never crawled again. It
 * also lists /guide/, which no page links, then its alias /guide/index.html: one page, crawled once.
 */
export const REREAD_SITE = {
  linkingPages: Array.from({ length: 12 }, (_, i) => `/p${i + 1}`),
  /** Pages that link to /t and /gone: the twelve, then /a. */
  get referrers(): string[] {
    return [...this.linkingPages, '/a'];
  },
  /** Distinct HTML pages, each loading /style.css: the home page, the twelve, /a, /t, /docs/ and /guide/. */
  get htmlPages(): string[] {
    return ['/', ...this.referrers, '/t', '/docs/', '/guide/'];
  },
  /** Sitemap entries that are the `/index.html` URLs of pages the crawl knows (or the sitemap lists before). */
  sitemapAliases: ['/index.html', '/docs/index.html', '/guide/index.html'],
};

function html(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="/style.css"></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
}

const TARGET_LINKS =
  '<p><a href="/t">The target page</a> and <a href="/gone">a page that is gone</a>. <a href="/index.html">Home</a></p>';

function answer(path: string, origin: string): { status: number; headers: Record<string, string>; body: string } {
  const page = (body: string) => ({ status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body });
  if (path === '/') {
    // /a comes after the twelve, so the crawl has named ten referrers of /t before /a is read.
    const links = [...REREAD_SITE.linkingPages, '/a', '/old', '/docs/'].map((p) => `<a href="${p}">Page ${p}</a>`);
    return page(html('Home of the reread site', `<nav>${links.join(' ')}</nav>`));
  }
  if (REREAD_SITE.linkingPages.includes(path) || path === '/a') return page(html(`Page ${path}`, TARGET_LINKS));
  if (path === '/t')
    return page(html('The target page', '<p>Linked from thirteen pages. <a href="/moved">Moved</a></p>'));
  if (path === '/old' || path === '/moved') return { status: 301, headers: { location: '/a' }, body: '' };
  if (path === '/docs/') return page(html('Documentation', '<p>The documentation of the reread site.</p>'));
  if (path === '/guide/') return page(html('Guide', '<p>A guide that only the sitemap lists.</p>'));
  if (path === '/sitemap.xml') {
    const locs = ['/index.html', '/docs/index.html', '/guide/', '/guide/index.html', '/a'].map(
      (p) => `<url><loc>${origin}${p}</loc></url>`,
    );
    const xml = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</urlset>`;
    return { status: 200, headers: { 'content-type': 'application/xml' }, body: xml };
  }
  if (path === '/style.css') return { status: 200, headers: { 'content-type': 'text/css' }, body: 'p{margin:0}' };
  return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
}

/** Serves the site on 127.0.0.1. */
export function serveRereadSite(): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
    const { status, headers, body } = answer(new URL(req.url ?? '/', origin).pathname, origin);
    res.writeHead(status, headers).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    ),
  );
}
