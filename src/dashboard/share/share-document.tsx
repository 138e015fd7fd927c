import { createHash } from 'node:crypto';
import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { imageFormat, NEUTRAL_BRANDING, type Branding } from '../../reports/branding';
import { assetUrl } from '../assets';

/**
 * The HTML document of a share page: the dashboard's stylesheet and the share page's own, the agency's
 * colours in one inline <style> allowed by its hash, and no script at all. The policy below is the
 * whole of what the page may load: our stylesheets, that one style, images from here or inline (the
 * logo is a data: URL), and forms posted back here (docs/decisions.md, "Share links").
 */

/** A rendered share page and the Content-Security-Policy that lets exactly it run. */
export interface SharePage {
  html: string;
  csp: string;
}

export function renderSharePage(props: { title: string; branding: Branding; children: ComponentChildren }): SharePage {
  const style = brandStyle(props.branding);
  const html = `<!doctype html>${renderToString(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="referrer" content="same-origin" />
        <title>{props.title}</title>
        {/* No favicon request (it would be a 404 of the dashboard's): an empty inline one. */}
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href={assetUrl('dashboard.css')} />
        <link rel="stylesheet" href={assetUrl('share.css')} />
        <style dangerouslySetInnerHTML={{ __html: style }} />
      </head>
      <body>
        <BrandBand branding={props.branding} />
        {props.children}
      </body>
    </html>,
  )}`;
  return { html, csp: shareCsp(style) };
}

function shareCsp(style: string): string {
  const hash = createHash('sha256').update(style).digest('base64');
  return [
    "default-src 'none'",
    `style-src 'self' 'sha256-${hash}'`,
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The band of the PDF's cover: the agency's colour, logo and name. */
function BrandBand(props: { branding: Branding }) {
  const { branding } = props;
  const format = branding.logo ? imageFormat(branding.logo) : null;
  return (
    <header class="share-band">
      <div class="share-band-inner">
        {branding.logo && format ? (
          <img
            class="share-logo"
            src={`data:image/${format};base64,${branding.logo.toString('base64')}`}
            alt={`${branding.displayName} logo`}
          />
        ) : null}
        <span class="share-brand">{branding.displayName}</span>
      </div>
    </header>
  );
}

const HEX = /^#[0-9a-f]{6}$/i;
const DARK_INK = '#111827';
/** The dashboard's own link colour, for brand colours too pale to read as text on white. */
const DEFAULT_ACCENT = '#3d4eac';

/**
 * The agency's colour as CSS variables: the band in it, with white or near-black text, whichever
 * contrasts more; links in it too when it reads on white (WCAG AA, 4.5:1), else in our own blue.
 */
export function brandStyle(branding: Branding): string {
  const brand = HEX.test(branding.primaryColor) ? branding.primaryColor.toLowerCase() : NEUTRAL_BRANDING.primaryColor;
  const ink = contrast(brand, '#ffffff') >= contrast(brand, DARK_INK) ? '#ffffff' : DARK_INK;
  const accent = contrast(brand, '#ffffff') >= 4.5 ? brand : DEFAULT_ACCENT;
  return `:root{--brand:${brand};--brand-ink:${ink};--accent:${accent}}`;
}

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
