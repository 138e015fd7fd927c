import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/** A generated site for the benches. Home → sections → 20 products each: every page within depth 2. */
function linksOf(path: string, total: number): string[] {
  const sections = Math.ceil(total / 20);
  if (path === '/') return Array.from({ length: sections }, (_, s) => `/s/${s}`);
  const section = /^\/s\/(\d+)$/.exec(path);
  if (section)
    return Array.from({ length: 20 }, (_, k) => `/p/${Number(section[1]) * 20 + k}`).filter(
      (p) => Number(p.slice(3)) < total,
    );
  const i = Number(path.slice(3));
  return [`/p/${(i + 1) % total}`, `/s/${Math.floor(i / 20)}`, '/'];
}

function page(path: string, i: number, total: number): string {
  const links = linksOf(path, total)
    .map((href) => `<li><a href="${href}">Widget catalogue: ${href}</a></li>`)
    .join('');
  const filler = '<p>Widgets for every workshop, made to last and priced fairly. '.repeat(60);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme widget number ${i} for every workshop</title><meta name="description" content="Widget ${i} from Acme.">
<link rel="stylesheet" href="/site.css"><script src="/app.js" defer></script></head>
<body><h1>Widget ${i}</h1><img src="/logo.png" alt="Acme" width="40" height="40"><ul>${links}</ul>${filler}</body></html>`;
}

export async function serveGeneratedSite(total: number): Promise<{ origin: string; close(): Promise<void> }> {
  const bodies = new Map<string, Buffer>();
  const paths = [
    '/',
    ...Array.from({ length: Math.ceil(total / 20) }, (_, s) => `/s/${s}`),
    ...Array.from({ length: total }, (_, i) => `/p/${i}`),
  ];
  paths.forEach((path, i) => bodies.set(path, zlib.gzipSync(page(path, i, total))));
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const body = bodies.get(url);
    if (body) {
      res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'content-encoding': 'gzip',
          'cache-control': 'max-age=60',
        })
        .end(body);
    } else if (url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    } else if (['/site.css', '/app.js', '/logo.png'].includes(url)) {
      res
        .writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'max-age=31536000, immutable' })
        .end('x'.repeat(2048));
    } else {
      res
        .writeHead(404, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Not found</title><h1>Not found</h1><p>Try the home page.</p>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
