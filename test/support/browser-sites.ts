import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';

/**
 * Fixture pages for the browser stage, each with one measurable defect, served from one site on
 * 127.0.0.1. Sizes are chosen so that Lighthouse's verdicts are far from its thresholds.
 */
const HEAD = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>`;

const PARAGRAPH = 'The browser stage renders sampled pages in headless Chromium and measures them as Lighthouse does. ';

/** A 2.5 MB hero image: under simulated mobile throttling its download alone takes far more than 4 s. */
const HERO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><rect width="800" height="600" fill="#3366cc"/><!-- ${'x'.repeat(2_500_000)} --></svg>`;

export const BROWSER_PAGES: Record<string, string> = {
  '/': `${HEAD('Browser stage fixture home')}<body><h1>Fixture home</h1><p>${PARAGRAPH}</p><p><a href="/slow-hero">Slow hero</a> <a href="/shifts">Shifts</a> <a href="/never-renders">Never renders</a></p></body></html>`,
  '/slow-hero': `${HEAD('Slow hero image')}<body><img src="/hero.svg" width="800" height="600" alt="A large hero image" style="width:100%;height:auto"><p>${PARAGRAPH}</p></body></html>`,
  // Blocks of text pushed down by content inserted above them after the first paint.
  '/shifts': `${HEAD('Layout shifts')}<body><div id="top"></div><p style="font-size:20px">${PARAGRAPH.repeat(12)}</p><script>
    const grow = (h) => { const d = document.createElement('div'); d.style.height = h + 'px'; d.style.background = '#eee'; document.getElementById('top').prepend(d); };
    setTimeout(() => grow(300), 300); setTimeout(() => grow(300), 700); setTimeout(() => grow(300), 1100);
  </script></body></html>`,
  '/throws': `${HEAD('Throwing script')}<body><p>${PARAGRAPH}</p><script>console.error('fixture logged an error'); throw new Error('fixture exception');</script></body></html>`,
  '/contrast': `${HEAD('Low contrast')}<body><p>${PARAGRAPH}</p><p id="faint" style="color:#c8c8c8;background:#ffffff">This text is too faint to read.</p></body></html>`,
  // The link differs from its sentence only by a colour too close to the text's (1.7:1).
  '/link-colour': `${HEAD('Link told by colour')}<body><p style="color:#333333">${PARAGRAPH}Read <a id="colour-link" href="/" style="color:#555555;text-decoration:none">the details of the stage</a> for more. ${PARAGRAPH}</p></body></html>`,
  '/tiny-targets': `${HEAD('Tiny targets')}<body><p>${PARAGRAPH}</p><div><a class="tiny" href="/a" style="display:inline-block;width:10px;height:10px;font-size:8px;line-height:10px">a</a><a class="tiny" href="/b" style="display:inline-block;width:10px;height:10px;font-size:8px;line-height:10px">b</a></div></body></html>`,
  // An image from the cloud metadata address: the outbound policy must refuse it.
  '/ssrf': `${HEAD('Metadata image')}<body><p>${PARAGRAPH}</p><img src="http://169.254.169.254/latest/meta-data/logo.png" width="10" height="10" alt="probe"></body></html>`,
};

export interface BrowserFixtureSite {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves BROWSER_PAGES, /hero.svg, /never (a page whose server never answers) and /never-renders (a
 * page that answers the crawler but never a browser: crawled, sampled, then unrenderable).
 */
export async function serveBrowserSite(): Promise<BrowserFixtureSite> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    if (path === '/never') return; // holds the request open
    if (path === '/never-renders') {
      if (!/DomainAuditBot/.test(req.headers['user-agent'] ?? '')) return;
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`${HEAD('Crawled, never rendered')}<body><p>${PARAGRAPH}</p></body></html>`);
    }
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    if (path === '/hero.svg') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(HERO_SVG);
    const page = BROWSER_PAGES[path];
    if (page === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
