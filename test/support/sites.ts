import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalSite {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

/** A tiny website on 127.0.0.1 serving fixed routes (path → status, headers, body). */
export async function serveSite(
  routes: Record<string, { status?: number; headers?: Record<string, string>; body: string }>,
): Promise<LocalSite> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const route = routes[req.url ?? ''];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res
      .writeHead(route.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...route.headers })
      .end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A 13-page site whose pages answer after `delayMs`: the home page and /p0…/p11 each link to all
 * twelve, so a crawl of it lasts a few seconds — long enough to interrupt it or watch its progress.
 */
export async function serveSlowSite(delayMs: number): Promise<LocalSite> {
  const requests: string[] = [];
  const links = Array.from({ length: 12 }, (_, k) => `<a href="/p${k}">Page ${k} of this slow site</a>`).join(' ');
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const match = /^\/(p(\d+))?$/.exec(req.url ?? '');
    if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    if (!match)
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Not found</title>');
    const title = `Slow page number ${match[2] ?? 'home'} here`;
    setTimeout(() => {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><html lang="en"><title>${title}</title><body>${links}</body></html>`);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port with nothing listening on it (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type CountingSite = LocalSite & { maxInFlight(): number };

/**
 * A server on `host` that records every request's path and answers what `route` decides: an HTML
 * body sent after `delayMs` (counted in flight until then), or a status and a typed body at once.
 */
async function serveCounting(
  host: string,
  delayMs: number,
  route: (path: string) => { html: string } | { status: number; type: string; body: string },
): Promise<CountingSite> {
  const requests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const answer = route(req.url ?? '');
    if (!('html' in answer)) return void res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'content-type': 'text/html' }).end(answer.html);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A site of `pages` linked pages that answer after `delayMs`, counting requests and the most in flight
 * at once. With `elsewhere`, page k also links to `${elsewhere}/e${k}` (another site's page).
 */
export function serveCountingSite(pages: number, delayMs: number, elsewhere?: string): Promise<CountingSite> {
  // Page k links to 2k+1 and 2k+2: a tree, several levels deep.
  const html = (k: number) => {
    const children = [2 * k + 1, 2 * k + 2].filter((c) => c < pages);
    const external = elsewhere ? [`<a href="${elsewhere}/e${k}">Elsewhere, page ${k}</a>`] : [];
    const links = children
      .map((c) => `<a href="/p${c}">Page ${c} of this counted site</a>`)
      .concat(external)
      .join(' ');
    return `<!doctype html><html lang="en"><title>Counted page number ${k} here</title><body>${links}</body></html>`;
  };
  return serveCounting('127.0.0.1', delayMs, (path) => {
    if (path === '/robots.txt') return { status: 200, type: 'text/plain', body: '' };
    const match = /^\/(?:p(\d+))?$/.exec(path);
    const k = match ? Number(match[1] ?? 0) : pages;
    return k < pages
      ? { html: html(k) }
      : { status: 404, type: 'text/html', body: '<!doctype html><title>Not found</title>' };
  });
}

/** Another site on `host` whose every URL answers 200 after `delayMs`, counting the most requests in flight at once. */
export function serveCountingHost(host: string, delayMs: number): Promise<CountingSite> {
  return serveCounting(host, delayMs, () => ({ html: '<!doctype html><title>Elsewhere</title>' }));
}
