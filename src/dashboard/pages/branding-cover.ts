import { imageFormat, NEUTRAL_BRANDING, type Branding } from '../../reports/branding';

const WIDTH = 595; // A4 in points, as the PDF cover (src/reports/pdf/cover.ts)
const HEIGHT = 842;
const MARGIN = 50;
const BAND = 150;

/**
 * The report cover's look as an SVG data URL: the agency's band in its colour with logo and name,
 * the domain, the contact and footer lines. Shown in an <img>, so the strict CSP (no inline
 * styles) holds and nothing in it can run.
 */
export function brandingCoverDataUrl(branding: Branding | null, sampleDomain = 'example.com'): string {
  const b = branding ?? NEUTRAL_BRANDING;
  const logoFormat = b.logo ? imageFormat(b.logo) : null;
  const nameX = b.logo && logoFormat ? MARGIN + 160 : MARGIN;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<rect width="${WIDTH}" height="${BAND}" fill="${b.primaryColor}"/>`,
    b.logo && logoFormat
      ? `<image x="${MARGIN}" y="40" width="140" height="70" preserveAspectRatio="xMidYMid meet" href="data:image/${logoFormat};base64,${b.logo.toString('base64')}"/>`
      : '',
    `<text x="${nameX}" y="82" font-size="20" font-weight="bold" fill="#ffffff">${xml(b.displayName)}</text>`,
    `<text x="${MARGIN}" y="214" font-size="14" fill="#5b6770">Website audit</text>`,
    `<text x="${MARGIN}" y="256" font-size="34" font-weight="bold" fill="#1d2730">${xml(sampleDomain)}</text>`,
    b.contactLine
      ? `<text x="${WIDTH / 2}" y="712" font-size="10" font-weight="bold" text-anchor="middle" fill="#1d2730">Prepared by ${xml(b.displayName)}</text>` +
        `<text x="${WIDTH / 2}" y="728" font-size="10" text-anchor="middle" fill="#5b6770">${xml(b.contactLine)}</text>`
      : '',
    b.footerText
      ? `<text x="${MARGIN}" y="${HEIGHT - 30}" font-size="8" fill="#5b6770">${xml(b.footerText)}</text>`
      : '',
    '</svg>',
  ];
  return `data:image/svg+xml;base64,${Buffer.from(parts.join(''), 'utf8').toString('base64')}`;
}

function xml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
