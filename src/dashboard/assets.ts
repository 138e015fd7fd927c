import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';

/**
 * The dashboard's only assets, served by us (works offline, allowed by `script-src 'self'`). Their
 * URLs carry a content hash, so browsers may keep them for a year and still see every change.
 */
const FILES = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  // The public share page's own rules, beside the dashboard's (src/dashboard/share/).
  'share.css': 'text/css; charset=utf-8',
} as const;
export type AssetName = keyof typeof FILES;

interface Asset {
  url: string;
  body: Buffer;
  type: string;
}

let assets: Map<AssetName, Asset> | null = null;

function loadAssets(): Map<AssetName, Asset> {
  assets ??= new Map(
    (Object.keys(FILES) as AssetName[]).map((name) => {
      const body = fs.readFileSync(path.join(__dirname, 'assets', name));
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const [base, ext] = name.split('.');
      return [name, { url: `/assets/${base}.${hash}.${ext}`, body, type: FILES[name] }];
    }),
  );
  return assets;
}

export function assetUrl(name: AssetName): string {
  return loadAssets().get(name)!.url;
}

export function assetRoutes(router: Router): void {
  router.get('/assets/:file', (ctx) => {
    const asset = [...loadAssets().values()].find((a) => a.url === ctx.path);
    if (!asset) return;
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.body = asset.body;
  });
}
