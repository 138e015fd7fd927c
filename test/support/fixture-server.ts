/**
 * Serves a static fixture site (test/fixtures/sites/<name>) on 127.0.0.1, over http or https.
 *
 * A site is a folder of files plus an optional `headers.json`:
 *   {
 *     "compression": true,            // gzip text when the client accepts it (default true)
 *     "soft404": false,               // missing paths answer 200 with the home page (default false)
 *     "notFoundPage": "404.html",     // body of real 404s (default: a built-in error page)
 *     "rules": [                      // applied in order; later rules override earlier ones
 *       { "match": "*", "headers": { "x-content-type-options": "nosniff" } },
 *       { "match": "/old", "status": 301, "headers": { "location": "/older" } },
 *       { "match": "*.css", "headers": { "cache-control": "max-age=31536000" }, "compress": false }
 *     ]
 *   }
 * `match` is a path ("/a"), or a pattern where `*` matches anything. A rule with a status and no file
 * behind the path answers with an empty body (redirects). Header values that are arrays are sent as
 * repeated headers (Set-Cookie). `{{ORIGIN}}` in text files and header values is replaced by the
 * server's origin (absolute URLs in sitemaps, robots.txt, canonical links).
 *
 * `{{REQUEST_ORIGIN}}` in a header value is replaced by the request's Origin header (the header is left
 * out when the request has none), to model a CORS policy that reflects any origin. `delayMs` holds the
 * answer back (slow time to first byte).
 *
 * Paths resolve to the file itself, then `<path>.html`, then `<path>/index.html`.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

export const FIXTURE_SITES_DIR = path.resolve(__dirname, '../fixtures/sites');

export interface HeaderRule {
  match: string;
  status?: number;
  /** null removes a header set by an earlier rule. */
  headers?: Record<string, string | string[] | null>;
  compress?: boolean;
  /** Wait this long before answering (PERF_TTFB_SLOW). */
  delayMs?: number;
}

export interface SiteConfig {
  compression?: boolean;
  soft404?: boolean;
  notFoundPage?: string;
  rules?: HeaderRule[];
}

export interface FixtureServer {
  origin: string;
  port: number;
  /** Paths requested, in order (method and path). */
  requests: Array<{ method: string; path: string }>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** Serve over TLS with this key and certificate (PEM). */
  tls?: {
    key: string | Buffer;
    cert: string | Buffer;
    /** Lowest TLS version accepted (default Node's, TLS 1.2); 'TLSv1' needs ciphers '…:@SECLEVEL=0'. */
    minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
    ciphers?: string;
  };
  /** Loopback address to listen on (default 127.0.0.1). */
  host?: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
};

const DEFAULT_NOT_FOUND =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page not found</title></head>' +
  '<body><h1>Page not found</h1><p>The page you asked for does not exist on this site. Go back to the home page.</p></body></html>';

function isText(contentType: string): boolean {
  return /^text\/|\/(?:json|xml|javascript)|\+xml/.test(contentType);
}

function patternOf(match: string): RegExp {
  if (!match.includes('*')) return new RegExp(`^${match.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return new RegExp(
    `^${match
      .split('*')
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

export function readSiteConfig(siteDir: string): SiteConfig {
  const file = path.join(siteDir, 'headers.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as SiteConfig) : {};
}

function resolveFile(siteDir: string, urlPath: string): string | null {
  let p: string;
  try {
    p = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (p.includes('\0')) return null;
  const base = path.resolve(siteDir, `.${p}`);
  if (base !== siteDir && !base.startsWith(siteDir + path.sep)) return null;
  for (const c of p.endsWith('/')
    ? [path.join(base, 'index.html')]
    : [base, `${base}.html`, path.join(base, 'index.html')]) {
    if (path.basename(c) === 'headers.json') continue;
    try {
      if (fs.statSync(c).isFile()) return c;
    } catch {
      /* next candidate */
    }
  }
  return null;
}

export async function serveFixtureSite(site: string, options: ServeOptions = {}): Promise<FixtureServer> {
  const siteDir = path.join(FIXTURE_SITES_DIR, site);
  if (!fs.statSync(siteDir).isDirectory()) throw new Error(`no fixture site ${site}`);
  const config = readSiteConfig(siteDir);
  const rules = (config.rules ?? []).map((r) => ({ ...r, re: patternOf(r.match) }));
  const requests: FixtureServer['requests'] = [];
  let origin = '';
  const fill = (s: string) => s.split('{{ORIGIN}}').join(origin);

  const handler: http.RequestListener = (req, res) => {
    const urlPath = new URL(req.url ?? '/', 'http://fixture.invalid').pathname;
    requests.push({ method: req.method ?? '', path: urlPath });
    let status: number | undefined;
    let compress = config.compression !== false;
    let delayMs = 0;
    const requestOrigin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    const headers: Record<string, string | string[]> = {};
    for (const r of rules) {
      if (!r.re.test(urlPath)) continue;
      if (r.status !== undefined) status = r.status;
      if (r.compress !== undefined) compress = r.compress;
      if (r.delayMs !== undefined) delayMs = r.delayMs;
      for (const [k, v] of Object.entries(r.headers ?? {})) {
        if (v === null) {
          delete headers[k.toLowerCase()];
        } else if (!Array.isArray(v) && v.includes('{{REQUEST_ORIGIN}}')) {
          if (requestOrigin === undefined) continue;
          headers[k.toLowerCase()] = fill(v).split('{{REQUEST_ORIGIN}}').join(requestOrigin);
        } else headers[k.toLowerCase()] = Array.isArray(v) ? v.map(fill) : fill(v);
      }
    }
    const file = resolveFile(siteDir, urlPath);
    let body: Buffer;
    let contentType: string;
    if (file) {
      body = fs.readFileSync(file);
      contentType = TYPES[path.extname(file)] ?? 'application/octet-stream';
      status ??= 200;
    } else if (status !== undefined) {
      body = Buffer.alloc(0);
      contentType = 'text/html; charset=utf-8';
    } else if (config.soft404) {
      body = fs.readFileSync(path.join(siteDir, 'index.html'));
      contentType = TYPES['.html']!;
      status = 200;
    } else {
      body = config.notFoundPage
        ? fs.readFileSync(path.join(siteDir, config.notFoundPage))
        : Buffer.from(DEFAULT_NOT_FOUND);
      contentType = TYPES['.html']!;
      status = 404;
    }
    if (isText(contentType)) body = Buffer.from(fill(body.toString('utf8')));
    headers['content-type'] ??= contentType;
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (compress && body.length > 0 && isText(String(headers['content-type'])) && /\bgzip\b/.test(accepts)) {
      body = zlib.gzipSync(body);
      headers['content-encoding'] = 'gzip';
      headers['vary'] = 'Accept-Encoding';
    }
    headers['content-length'] = String(body.length);
    const send = () => {
      res.writeHead(status!, headers);
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  };

  const server = options.tls
    ? https.createServer(
        {
          key: options.tls.key,
          cert: options.tls.cert,
          ...(options.tls.minVersion ? { minVersion: options.tls.minVersion } : {}),
          ...(options.tls.ciphers ? { ciphers: options.tls.ciphers } : {}),
        },
        handler,
      )
    : http.createServer(handler);
  server.keepAliveTimeout = 1_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  origin = `${options.tls ? 'https' : 'http'}://${host}:${port}`;
  return {
    origin,
    port,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
