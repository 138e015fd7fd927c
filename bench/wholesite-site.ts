import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/**
 * The generated site of `npm run bench:wholesite`: every response is made on the fly from the path,
 * the same every time, with nothing per page kept in memory (a 1,000,000-page site costs what a
 * 1,000-page one does). Page i (the home page is 0, page i > 0 is /p/i) sits in a tree of fan-out 3
 * laid out breadth first: its children are 3i+1..3i+3, so depth grows with the size (a 500-page site
 * is 6 clicks deep, 100,000 pages 11). Links never reach deeper than the tree, so a page's click
 * depth is its tree depth: besides its children a page links home, the three sections, its parent
 * and grandparent, six neighbours on its own level and two shallow "popular" pages (13–17 links).
 * Planted defects: a broken link (/gone/…, 404) on every 60th page, a link through a 301 (/old/j →
 * /p/j) on every 40th, a missing image on every 150th, a near-duplicate of the page before it every
 * 97th (same text, new heading), a title and description repeated from the page before every 101st,
 * and five orphans (/lost/0–4) listed in the sitemap and linked from nowhere.
 */
export const FAN_OUT = 3;
export const ORPHANS = 5;
/** URLs per sitemap file (the protocol's maximum); larger sites get a sitemap index. */
const SITEMAP_URLS = 50_000;

const WORDS = (
  'widget gear spindle bracket hinge clamp lathe drill chisel plane router sander vise bench jig ' +
  'fixture bolt washer rivet spring valve gasket seal bearing axle pulley belt motor switch relay ' +
  'sturdy compact precise durable quiet balanced forged polished coated tempered calibrated ' +
  'workshop garage studio factory site yard shed kitchen garden marine outdoor indoor ' +
  'assembly maintenance repair upgrade install measure align fasten tighten adjust replace inspect'
).split(' ');
const ADJECTIVES = WORDS.slice(31, 42);
const NOUNS = WORDS.slice(0, 31);

/** Deterministic pseudo-random numbers (mulberry32) seeded by a page number. */
function random(seed: number): () => number {
  let a = (seed * 2654435761) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The first page number of each tree level: 0, 1, 4, 13, 40, … */
function levelStart(depth: number): number {
  return (FAN_OUT ** depth - 1) / (FAN_OUT - 1);
}

export function depthOf(i: number): number {
  let depth = 0;
  while (levelStart(depth + 1) <= i) depth++;
  return depth;
}

const pathOf = (i: number) => (i === 0 ? '/' : `/p/${i}`);
const parentOf = (i: number) => Math.floor((i - 1) / FAN_OUT);

function titleOf(i: number, total: number): string {
  if (i < total && i % 101 === 100) return titleOf(i - 1, total);
  if (i >= total) return `Archived ${NOUNS[i % NOUNS.length]} sheet ${i - total} | Acme workshop supply`;
  const next = random(i);
  const pick = (list: string[]) => list[Math.floor(next() * list.length)];
  return `${pick(ADJECTIVES)} ${pick(NOUNS)} model ${i} for the ${pick(WORDS.slice(42, 51))} | Acme workshop supply`;
}

/** Internal links of page i, as [href, text] pairs. */
function linksOf(i: number, total: number): Array<[string, string]> {
  const links: Array<[string, string]> = [['/', 'Home']];
  for (let s = 1; s <= FAN_OUT && s < total; s++) links.push([pathOf(s), `Section ${s}`]);
  if (i > 0) {
    const parent = parentOf(i);
    if (parent > 0) links.push([pathOf(parent), `Back to ${parent}`]);
    if (parent > 0 && parentOf(parent) > 0) links.push([pathOf(parentOf(parent)), `Up to ${parentOf(parent)}`]);
  }
  for (let c = FAN_OUT * i + 1; c <= FAN_OUT * i + FAN_OUT && c < total; c++) links.push([pathOf(c), `Item ${c}`]);
  const depth = depthOf(i);
  const [from, to] = [Math.max(1, levelStart(depth)), Math.min(total, levelStart(depth + 1))];
  for (let j = i - 3; j <= i + 3; j++) if (j !== i && j >= from && j < to) links.push([pathOf(j), `See also ${j}`]);
  const shallow = Math.min(total - 1, levelStart(3) - 1);
  for (let k = 0; k < 2 && shallow > 0; k++) {
    const j = 1 + ((i * 7 + k * 5) % shallow);
    links.push([pathOf(j), `Popular: item ${j}`]);
  }
  if (i % 60 === 59) links.push([`/gone/${i}`, 'Discontinued item']);
  if (i % 40 === 39) {
    const j = i + 1 < to ? i + 1 : i - 1;
    if (j >= 1) links.push([`/old/${j}`, `Item ${j} (old address)`]);
  }
  return links;
}

function paragraphs(seed: number): string {
  const next = random(seed + 7919);
  const out: string[] = [];
  for (let p = 0; p < 5; p++) {
    const words: string[] = [];
    const count = 28 + Math.floor(next() * 9);
    for (let w = 0; w < count; w++) words.push(WORDS[Math.floor(next() * WORDS.length)]);
    out.push(`<p>${words.join(' ')}.</p>`);
  }
  return out.join('\n');
}

/** Page i of a `total`-page site; i >= total are the orphans. */
export function pageHtml(i: number, total: number): string {
  const orphan = i >= total;
  const title = titleOf(i, total);
  const nearDuplicate = !orphan && i % 97 === 96;
  const text = paragraphs(nearDuplicate ? i - 1 : i);
  const links = orphan ? linksOf(0, total).slice(0, 4) : linksOf(i, total);
  const images = [0, 1, 2].map((k) =>
    k === 2 && i % 150 === 149 ? `/img/missing-${i}.png` : `/img/${(i + k * 13) % 40}.png`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><meta name="description" content="${title.replace(' |', ': specifications, prices and stock at')}.">
<link rel="stylesheet" href="/assets/site.css"></head><body>
<header><a href="/"><img src="${images[0]}" alt="Acme" width="120" height="40"></a></header>
<main><h1>${nearDuplicate ? `Item ${i}, another edition` : title.split(' |')[0]}</h1>
${text}
<img src="${images[1]}" alt="Photo of item ${i}" width="320" height="240"><img src="${images[2]}" alt="Detail of item ${i}" width="160" height="120">
<nav><ul>${links.map(([href, label]) => `<li><a href="${href}">${label}</a></li>`).join('')}</ul></nav></main>
<footer><p>Acme workshop supply, since 1952.</p></footer></body></html>`;
}

export interface WholeSite {
  origin: string;
  /** Pages linked from the home page (orphans not included). */
  total: number;
  /** Requests answered so far, by kind. */
  served: Record<string, number>;
  close(): Promise<void>;
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const CSS = 'body{font:16px/1.5 sans-serif;margin:0 auto;max-width:60em}nav li{display:inline;margin-right:1em}';
const NOT_FOUND =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page not found | Acme workshop supply</title></head>' +
  '<body><h1>Page not found</h1><p>The page you asked for is not here any more. Try the <a href="/">home page</a> ' +
  'or one of the sections of the catalogue.</p></body></html>';

type Answer = { status: number; type?: string; body?: string | Buffer; location?: string; kind: string };

function route(url: string, site: { origin: string; total: number }): Answer | ((res: http.ServerResponse) => void) {
  const { total, origin } = site;
  const page = /^\/(?:p\/(\d+))?$/.exec(url);
  const id = page ? Number(page[1] ?? 0) : NaN;
  if (page && id < total && (id > 0 || page[1] === undefined))
    return { status: 200, type: 'text/html; charset=utf-8', body: pageHtml(id, total), kind: 'page' };
  const lost = /^\/lost\/(\d)$/.exec(url);
  if (lost && Number(lost[1]) < ORPHANS)
    return {
      status: 200,
      type: 'text/html; charset=utf-8',
      body: pageHtml(total + Number(lost[1]), total),
      kind: 'orphan',
    };
  const old = /^\/old\/(\d+)$/.exec(url);
  if (old && Number(old[1]) < total) return { status: 301, location: pathOf(Number(old[1])), kind: 'redirect' };
  if (/^\/img\/\d+\.png$/.test(url)) return { status: 200, type: 'image/png', body: PNG, kind: 'asset' };
  if (url === '/assets/site.css') return { status: 200, type: 'text/css', body: CSS, kind: 'asset' };
  if (url === '/robots.txt')
    return {
      status: 200,
      type: 'text/plain',
      body: `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`,
      kind: 'robots',
    };
  const files = Math.ceil((total + ORPHANS) / SITEMAP_URLS);
  const sitemap = url === '/sitemap.xml' ? (files === 1 ? 0 : -1) : Number(/^\/sitemaps\/(\d+)\.xml$/.exec(url)?.[1]);
  if (sitemap === -1) {
    const locs = Array.from({ length: files }, (_, k) => `<sitemap><loc>${origin}/sitemaps/${k}.xml</loc></sitemap>`);
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.join('')}</sitemapindex>`;
    return { status: 200, type: 'application/xml', body, kind: 'sitemap' };
  }
  if (sitemap >= 0 && sitemap < files) return (res) => streamSitemap(res, origin, total, sitemap);
  return { status: 404, type: 'text/html; charset=utf-8', body: NOT_FOUND, kind: 'not found' };
}

/** Sitemap file k: its share of the pages, and the orphans in the first file; written in chunks. */
function streamSitemap(res: http.ServerResponse, origin: string, total: number, k: number): void {
  res.writeHead(200, { 'content-type': 'application/xml' });
  res.write('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n');
  if (k === 0) for (let o = 0; o < ORPHANS; o++) res.write(`<url><loc>${origin}/lost/${o}</loc></url>\n`);
  const end = Math.min(total, (k + 1) * SITEMAP_URLS - (k === 0 ? ORPHANS : 0));
  const start = k === 0 ? 0 : k * SITEMAP_URLS - ORPHANS;
  for (let i = start; i < end; i += 1000) {
    let chunk = '';
    for (let j = i; j < Math.min(end, i + 1000); j++) chunk += `<url><loc>${origin}${pathOf(j)}</loc></url>\n`;
    res.write(chunk);
  }
  res.end('</urlset>\n');
}

export async function serveWholeSite(total: number): Promise<WholeSite> {
  const served: Record<string, number> = {};
  const site = { origin: '', total };
  const server = http.createServer((req, res) => {
    const answer = route((req.url ?? '/').split('?')[0]!, site);
    if (typeof answer === 'function') {
      served.sitemap = (served.sitemap ?? 0) + 1;
      return answer(res);
    }
    served[answer.kind] = (served[answer.kind] ?? 0) + 1;
    if (answer.location) return res.writeHead(answer.status, { location: answer.location }).end();
    const headers: http.OutgoingHttpHeaders = {
      'content-type': answer.type,
      'cache-control': answer.kind === 'asset' ? 'max-age=31536000, immutable' : 'max-age=300',
    };
    let body = answer.body!;
    if (answer.kind !== 'asset' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      body = zlib.gzipSync(body, { level: 1 });
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(answer.status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin: site.origin,
    total,
    served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
