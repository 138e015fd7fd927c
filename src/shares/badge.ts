import { displayDomain } from '../reports/pdf/display-names';
import { scoreColor } from '../reports/pdf/theme';

/**
 * The badge beside a share link (`<url>/badge.svg`): a flat two-part badge as README badges look,
 * "audit" and the grade with the score, in the report's score colours (src/reports/pdf/theme.ts). An
 * image with an accessible name (`role="img"` and a `<title>` naming the site, grade and score), and
 * nothing in it but shapes and text: no script, no link, no font or image from anywhere.
 */

export interface BadgeInput {
  domain: string;
  status: string;
  score: number | null;
  grade: string | null;
}

const FONT = 'Verdana,Geneva,DejaVu Sans,sans-serif';
const HEIGHT = 20;
const PADDING = 6;
const LABEL = 'audit';
const LABEL_COLOR = '#555555';
const PENDING_COLOR = '#6b7280';

export function badgeSvg(input: BadgeInput): string {
  const completed = input.status === 'completed' && input.score !== null && input.grade !== null;
  const value = completed ? `${input.grade} · ${input.score}/100` : input.status === 'failed' ? 'failed' : 'pending';
  const color = completed ? scoreColor(input.score!) : PENDING_COLOR;
  const site = displayDomain(input.domain).unicode;
  const title = completed
    ? `Audit of ${site}: grade ${input.grade}, score ${input.score} out of 100`
    : `Audit of ${site}: ${input.status === 'failed' ? 'the audit failed' : 'not completed yet'}`;
  const labelWidth = Math.round(textWidth(LABEL) + 2 * PADDING);
  const valueWidth = Math.round(textWidth(value) + 2 * PADDING);
  const width = labelWidth + valueWidth;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" role="img" aria-labelledby="badge-title">`,
    `<title id="badge-title">${escapeXml(title)}</title>`,
    `<clipPath id="badge-round"><rect width="${width}" height="${HEIGHT}" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#badge-round)">`,
    `<rect width="${labelWidth}" height="${HEIGHT}" fill="${LABEL_COLOR}"/>`,
    `<rect x="${labelWidth}" width="${valueWidth}" height="${HEIGHT}" fill="${color}"/>`,
    `</g>`,
    `<g fill="#fff" text-anchor="middle" font-family="${FONT}" font-size="11" aria-hidden="true">`,
    `<text x="${labelWidth / 2}" y="14">${LABEL}</text>`,
    `<text x="${labelWidth + valueWidth / 2}" y="14" font-weight="bold">${escapeXml(value)}</text>`,
    `</g>`,
    `</svg>`,
  ].join('');
}

// Advance widths of Verdana at 11 px, near enough for the few characters a badge holds (wider than
// the fallback fonts, so the text never overflows its half).
const NARROW = new Set([..."ijlI.,:;!|' "]);
const WIDE = new Set([...'mwMW@%']);

function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (NARROW.has(char)) width += 3.9;
    else if (WIDE.has(char)) width += 10.5;
    else if (char === '·') width += 4.5;
    else if (/[A-Z0-9+/]/.test(char)) width += 7.6;
    else width += 6.9;
  }
  return width;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
