import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Two small sites on 127.0.0.1 for the application-shell rule (docs/analyzers.md, "Rendering where it
 * is needed"). The client-rendered one answers every route with the same HTML shell; its script
 * fetches the site's content (answered late, after the load event) and builds each page's heading,
 * text and links, so its deeper pages are reachable only through rendered links. /thanks is a small
 * page with a script that changes nothing: rendered, and it passes; /stuck never finishes loading in
 * a browser: unrenderable. The server-rendered control
 * sends the same pages as HTML, each with a script and its links (/thanks and /stuck without a
 * script), so nothing in it is a shell.
 */

/** Each route: its one-word heading, its words of text, and the routes it links to. */
export const CLIENT_ROUTES: Record<string, { title: string; words: number; links: string[] }> = {
  '/': { title: 'Home', words: 80, links: ['/about', '/products'] },
  '/about': { title: 'About', words: 60, links: ['/', '/thanks'] },
  '/products': { title: 'Products', words: 70, links: ['/', '/products/one'] },
  '/products/one': { title: 'Widget', words: 55, links: ['/products', '/stuck'] },
};

const words = (n: number) => Array.from({ length: n }, (_, i) => `lorem${i}`).join(' ');

const HEAD = (title: string, script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><script src="${script}" defer></script></head>`;

const SHELL = `${HEAD('Client-rendered fixture', '/app.js')}<body><div id="app"></div><noscript>This site needs JavaScript.</noscript></body></html>`;

/** Builds the route's page from /api/content.json once it arrives. */
const APP_JS = `fetch('/api/content.json').then((r) => r.json()).then((routes) => {
  const route = routes[location.pathname];
  if (!route) return;
  const nav = route.links.map((href) => '<a href="' + href + '">' + href + '</a>').join(' ');
  const text = Array.from({ length: route.words }, (_, i) => 'lorem' + i).join(' ');
  document.getElementById('app').innerHTML = '<nav>' + nav + '</nav><main><h1>' + route.title + '</h1><p>' + text + '</p></main>';
});`;

/** A shell whose script loads an image the server never sends: its load event never fires. */
const STUCK = `${HEAD('Stuck', '/stuck.js')}<body><div id="app"></div></body></html>`;
const STUCK_JS = `const img = new Image(); img.src = '/never'; document.body.appendChild(img);`;

const THANKS = `${HEAD('Thanks', '/thanks.js')}<body><main><h1>Thanks</h1><p>Your message was sent.</p></main></body></html>`;

function serverRendered(path: string): string | undefined {
  const route = CLIENT_ROUTES[path];
  // Without a script: nothing on the control site is a shell.
  if (path === '/thanks') return THANKS.replace('<script src="/thanks.js" defer></script>', '');
  if (path === '/stuck') return STUCK.replace('<script src="/stuck.js" defer></script>', '');
  if (!route) return undefined;
  const nav = route.links.map((href) => `<a href="${href}">${href}</a>`).join(' ');
  return `${HEAD(route.title, '/analytics.js')}<body><nav>${nav}</nav><main><h1>${route.title}</h1><p>${words(route.words)}</p></main></body></html>`;
}

export interface RenderFixtureSite {
  origin: string;
  /** Request paths in arrival order, each with its user agent's first word. */
  requests: { path: string; agent: string }[];
  close(): Promise<void>;
}

/** Serves the client-rendered site (`kind: 'client'`) or its server-rendered control (`'server'`). */
export async function serveRenderFixture(kind: 'client' | 'server'): Promise<RenderFixtureSite> {
  const requests: RenderFixtureSite['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push({ path, agent: (req.headers['user-agent'] ?? '').split('/')[0]! });
    const send = (type: string, body: string) => void res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/robots.txt') return send('text/plain', '');
    if (path === '/thanks.js') return send('text/javascript', "document.title = 'Thanks!';");
    if (path === '/analytics.js') return send('text/javascript', 'window.analytics = true;');
    if (kind === 'client') {
      if (path === '/app.js') return send('text/javascript', APP_JS);
      // Late on purpose: the page is built after its load event, once the network is quiet.
      if (path === '/api/content.json')
        return void setTimeout(() => send('application/json', JSON.stringify(CLIENT_ROUTES)), 400);
      if (path in CLIENT_ROUTES) return send('text/html; charset=utf-8', SHELL);
      if (path === '/thanks') return send('text/html; charset=utf-8', THANKS);
      if (path === '/stuck') return send('text/html; charset=utf-8', STUCK);
      if (path === '/stuck.js') return send('text/javascript', STUCK_JS);
      if (path === '/never') return; // held open until the site closes
    } else {
      const html = serverRendered(path);
      if (html !== undefined) return send('text/html; charset=utf-8', html);
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
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
