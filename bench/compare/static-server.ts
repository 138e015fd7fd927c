/**
 * Serves an extracted real site (bench/compare/real-sites.ts) on 127.0.0.1 the way GitHub Pages serves
 * it: `/dir/` answers dir/index.html, `/dir` redirects to `/dir/` when that is a folder, `/page` answers
 * page.html, a missing path answers 404 with the site's own 404.html, text is gzipped when the client
 * accepts it, and every answer says `cache-control: max-age=600`. The production URL prefixes of the
 * site (`origins`) are rewritten to the loopback origin in text responses.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

/** GitHub Pages' types (its mime-types list) for the files these sites hold. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.mjs': 'application/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.rst': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject',
  '.pdf': 'application/pdf',
  '.gz': 'application/gzip',
  '.zip': 'application/zip',
};

const isText = (type: string) => /^text\/|javascript|json|xml/.test(type);

const NOT_FOUND =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page not found · GitHub Pages</title></head>' +
  '<body><h1>404</h1><p>File not found</p></body></html>';

type Resolved = { file: string } | { redirect: string } | null;

/** GitHub Pages' lookup: the file, then `<path>.html`, then a folder's index.html (redirecting to add the slash). */
function resolve(root: string, urlPath: string): Resolved {
  let p: string;
  try {
    p = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (p.includes('\0')) return null;
  const base = path.resolve(root, `.${p}`);
  if (base !== root && !base.startsWith(root + path.sep)) return null;
  const isFile = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.isFile() === true;
  if (p.endsWith('/')) return isFile(path.join(base, 'index.html')) ? { file: path.join(base, 'index.html') } : null;
  if (isFile(base)) return { file: base };
  if (isFile(`${base}.html`)) return { file: `${base}.html` };
  if (isFile(path.join(base, 'index.html'))) return { redirect: `${urlPath}/` };
  return null;
}

export async function serveDirectory(root: string, origins: readonly string[] = []): Promise<StaticServer> {
  let origin = '';
  const rewrite = (text: string) => origins.reduce((t, o) => t.split(o).join(origin), text);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://static.invalid');
    const found = resolve(root, url.pathname);
    const headers: Record<string, string> = { 'cache-control': 'max-age=600' };
    if (found && 'redirect' in found) {
      res.writeHead(301, { ...headers, location: `${found.redirect}${url.search}`, 'content-length': '0' });
      res.end();
      return;
    }
    const notFound = path.join(root, '404.html');
    const file = found?.file ?? (fs.existsSync(notFound) ? notFound : null);
    const status = found ? 200 : 404;
    const type = file ? (TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream') : TYPES['.html']!;
    let body: Buffer = file ? fs.readFileSync(file) : Buffer.from(NOT_FOUND);
    if (isText(type) && origins.length > 0) body = Buffer.from(rewrite(body.toString('utf8')));
    headers['content-type'] = type;
    if (isText(type) && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      body = zlib.gzipSync(body);
      headers['content-encoding'] = 'gzip';
      headers['vary'] = 'Accept-Encoding';
    }
    headers['content-length'] = String(body.length);
    res.writeHead(status, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
