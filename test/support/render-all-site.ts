import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A server-rendered site on 127.0.0.1 for `render: "all"` (docs/analyzers.md, "Browser stage"): a
 * home page and eleven topic pages that all link to one another (the most-linked pages, so a team
 * audit's sample of ten is the home page and nine topics), and five archive pages that only one
 * page links to, so no sample ever takes them:
 * - /archive/faded has a paragraph of light grey text on white (about 1.9:1): low contrast;
 * - /archive/clear, its control, has the same paragraph in near-black;
 * - /archive/scripted is linked only by a link that /topics/2's script adds once it runs, and its own
 *   script throws: it is crawled, and its error seen, only when the pages are rendered.
 * - /archive/alt-by-script has a photo without alt and a "Menu" button in its HTML; its script gives
 *   the photo an alt and empties the button: only the rendered page names the photo and not the button;
 * - /archive/no-alt, its control, has the same photo without alt and no script.
 * Every other page has dark text, roomy links and no script error. /favicon.ico answers 404, as on
 * many sites: the browser's own request for it is no error of any page.
 */

export const TOPICS = Array.from({ length: 11 }, (_, i) => `/topics/${i + 1}`);
export const FADED = '/archive/faded';
export const CLEAR = '/archive/clear';
export const SCRIPTED = '/archive/scripted';
export const ALT_BY_SCRIPT = '/archive/alt-by-script';
export const NO_ALT = '/archive/no-alt';
const PHOTO = '<img src="/photo.png" width="40" height="40">';
/** A 1 × 1 PNG, so the photo loads as on a real page. */
const PHOTO_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

const HEAD = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>body{font:18px/1.6 sans-serif;color:#111;background:#fff}nav a{display:block;padding:12px 0}</style></head>`;

const TEXT =
  'This page is part of a small fixture site that an audit renders in a browser. It has enough words to read as a page of its own, with a heading, a paragraph and links to the other pages of the site. ';

const nav = (links: string[]) => `<nav>${links.map((href) => `<a href="${href}">${href}</a>`).join('')}</nav>`;

function page(title: string, links: string[], main: string, script = ''): string {
  return `${HEAD(title)}<body>${nav(links)}<main><h1>${title}</h1><p>${TEXT.repeat(3)}</p>${main}</main>${script}</body></html>`;
}

const EVERYWHERE = ['/', ...TOPICS];

/** Each path's HTML. */
export const RENDER_ALL_PAGES: Record<string, string> = {
  '/': page('Home', TOPICS, ''),
  ...Object.fromEntries(
    TOPICS.map((path, i) => {
      const links = EVERYWHERE.filter((p) => p !== path);
      if (i === 0) return [path, page(`Topic ${i + 1}`, [...links, FADED, CLEAR, ALT_BY_SCRIPT, NO_ALT], '')];
      if (i === 1)
        return [
          path,
          page(
            `Topic ${i + 1}`,
            links,
            '',
            `<script>const a = document.createElement('a'); a.href = '${SCRIPTED}'; a.textContent = 'More, once scripts run'; document.querySelector('nav').append(a);</script>`,
          ),
        ];
      return [path, page(`Topic ${i + 1}`, links, '')];
    }),
  ),
  [FADED]: page('Faded archive', ['/'], `<p class="faded" style="color:#bbbbbb">${TEXT}</p>`),
  [CLEAR]: page('Clear archive', ['/'], `<p class="clear" style="color:#222222">${TEXT}</p>`),
  [SCRIPTED]: page('Scripted archive', ['/'], '', `<script>throw new Error('the scripted archive failed');</script>`),
  [ALT_BY_SCRIPT]: page(
    'Photo archive',
    ['/'],
    `${PHOTO}<button id="menu">Menu</button>`,
    `<script>document.querySelector('img').alt = 'A photo'; document.querySelector('#menu').textContent = '';</script>`,
  ),
  [NO_ALT]: page('Photo archive without alt', ['/'], PHOTO),
};

export interface RenderAllSite {
  origin: string;
  /** Request paths in arrival order, each with its user agent's first word (DomainAuditBot, Mozilla). */
  requests: { path: string; agent: string }[];
  close(): Promise<void>;
}

export async function serveRenderAllSite(): Promise<RenderAllSite> {
  const requests: RenderAllSite['requests'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const agent = req.headers['user-agent'] ?? '';
    requests.push({ path, agent: /DomainAuditBot/.test(agent) ? 'DomainAuditBot' : agent.split('/')[0]! });
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('');
    if (path === '/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PHOTO_PNG);
    const html = RENDER_ALL_PAGES[path];
    if (html === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
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
