import { createHash } from 'node:crypto';
import fs from 'node:fs';
import Router from '@koa/router';
import type { ApiState } from '../context';

/**
 * Redoc needs more than the dashboard's policy allows, and only here: styled-components writes its
 * rules into <style> elements at run time (style-src 'unsafe-inline'), and its search index runs in
 * a Web Worker built from a blob: URL (worker-src blob:). Scripts stay 'self' only (no inline script,
 * no eval), data goes only to our origin (the document at /v1/openapi.json), nothing may frame it.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  'worker-src blob:',
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

interface Bundle {
  url: string;
  body: Buffer;
}

let bundle: Bundle | null = null;

/** Redoc's side menu shows a logo fetched from Redocly's CDN; a blank image of our own stands in (the CSP would block it). */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/** Redoc's standalone bundle from our own node_modules (no CDN); the hash in its URL lets browsers keep it. */
function redocBundle(): Bundle {
  if (!bundle) {
    const source = fs.readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
    const body = Buffer.from(source.replaceAll(REMOTE_LOGO, BLANK_SVG));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    bundle = { url: `/docs/assets/redoc.${hash}.js`, body };
  }
  return bundle;
}

/** The page: Redoc reads the spec-url and options from the element's attributes, so no inline script. */
function docsPage(scriptUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Domain Audit API reference</title>
</head>
<body style="margin:0">
<noscript>This reference needs JavaScript. The raw document is at <a href="/v1/openapi.json">/v1/openapi.json</a>; the error codes at <a href="/docs/errors">/docs/errors</a>.</noscript>
<redoc spec-url="/v1/openapi.json" expand-responses="200,201,202" path-in-middle-panel="true" json-sample-expand-level="3"></redoc>
<script src="${scriptUrl}"></script>
</body>
</html>
`;
}

/** GET /docs (the API reference rendered by Redoc) and the bundle it loads. No API key needed. */
export function docsRoutes(): Router<ApiState> {
  const router = new Router<ApiState>();
  const secure = (ctx: { set(headers: Record<string, string>): void }) =>
    ctx.set({
      'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
  router.get('/docs', (ctx) => {
    secure(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = docsPage(redocBundle().url);
  });
  router.get('/docs/assets/:file', (ctx) => {
    const asset = redocBundle();
    if (ctx.path !== asset.url) return;
    secure(ctx);
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = asset.body;
  });
  return router;
}
