import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { domainToUnicode } from 'node:url';
import PDFDocument from 'pdfkit';
import { catalogIndex, findCatalogEntry, SEVERITY_RANK } from '../analyzers/catalog';
import {
  CATEGORIES, SEVERITIES,
  type AnalyzerStatus, type AuditJson, type Category, type Finding, type Severity,
} from '../schemas/audit';
import { BrandingError, NEUTRAL_BRANDING, type Branding } from './branding';

/**
 * The PDF audit report: cover, contents, summary, findings by category then severity, and an
 * appendix of every analyzer. White-label: with branding, the agency's name, logo and colour are
 * the only names in the document (text and metadata); without, a neutral look that names no product.
 *
 * Fonts are DejaVu Sans (npm package dejavu-fonts-ttf), embedded and subset, which covers Latin,
 * Greek, Cyrillic, Arabic and Hebrew letters among others. CJK is not in DejaVu: if a fallback font
 * is available (REPORT_FALLBACK_FONT, or Debian's fonts-noto-cjk), text DejaVu cannot show is set in
 * it; otherwise a domain DejaVu cannot show is printed in its ASCII (punycode) form.
 *
 * Deterministic: the same audit, branding and generatedAt give the same bytes (pdfkit derives the
 * file ID from the metadata, and CreationDate/ModDate come from generatedAt).
 */

export interface RenderOptions {
  /** Printed on the cover and used as CreationDate; defaults to now. */
  generatedAt?: Date;
  /**
   * A test-mode report: the same document, built from the synthetic audit, marked on the cover and
   * in every footer as sample data so that it cannot pass for a real audit.
   */
  sample?: boolean;
}

export const SAMPLE_NOTICE = 'SAMPLE REPORT — synthetic test-mode data, not an audit of this site';

// ── fonts ─────────────────────────────────────────────────────────────────────────────────────

interface FontFiles {
  body: Buffer;
  bold: Buffer;
  mono: Buffer;
  fallback: { data: Buffer; family?: string } | null;
}

let fontCache: FontFiles | null = null;

function fallbackFont(): FontFiles['fallback'] {
  const configured = process.env['REPORT_FALLBACK_FONT'];
  const candidates: { file: string; family?: string }[] = [];
  if (configured) {
    const [file, family] = configured.split('#');
    candidates.push(family ? { file: file!, family } : { file: file! });
  }
  candidates.push(
    { file: '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', family: 'NotoSansCJKjp-Regular' },
    { file: '/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf' },
  );
  for (const c of candidates) {
    if (!existsSync(c.file)) continue;
    // Read once per process; a collection (.ttc) also needs the face's PostScript name.
    return c.family ? { data: readFileSync(c.file), family: c.family } : { data: readFileSync(c.file) };
  }
  return null;
}

function fonts(): FontFiles {
  if (fontCache) return fontCache;
  const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  fontCache = {
    body: readFileSync(path.join(dir, 'DejaVuSans.ttf')),
    bold: readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')),
    mono: readFileSync(path.join(dir, 'DejaVuSansMono.ttf')),
    fallback: fallbackFont(),
  };
  return fontCache;
}

type FontName = 'body' | 'bold' | 'mono' | 'fallback';

// ── labels and colours ────────────────────────────────────────────────────────────────────────

export const CATEGORY_LABELS: Readonly<Record<Category, string>> = {
  security: 'Security',
  seo: 'Search engine optimisation',
  performance: 'Performance',
  accessibility: 'Accessibility',
  best_practices: 'Best practices',
  dns_email: 'DNS and email',
};

const SEVERITY_LABELS: Readonly<Record<Severity, string>> = {
  critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info',
};

const SEVERITY_COLORS: Readonly<Record<Severity, string>> = {
  critical: '#b91c1c', high: '#ea580c', medium: '#b45309', low: '#2563eb', info: '#6b7280',
};

const STATUS_LABELS: Readonly<Record<AnalyzerStatus, string>> = {
  pass: 'Pass', warn: 'Warning', fail: 'Fail', not_applicable: 'Not applicable', error: 'Error',
};

const STATUS_COLORS: Readonly<Record<AnalyzerStatus, string>> = {
  pass: '#15803d', warn: '#b45309', fail: '#b91c1c', not_applicable: '#6b7280', error: '#7c3aed',
};

const TEXT = '#1f2937';
const MUTED = '#6b7280';
const RULE = '#e5e7eb';

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function formatDate(d: Date): string {
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

function scoreColor(score: number): string {
  if (score >= 90) return '#15803d';
  if (score >= 75) return '#65a30d';
  if (score >= 50) return '#b45309';
  return '#b91c1c';
}

/** A URL as a person reads it: the host of an IDN in Unicode. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.hostname.includes('xn--')) return url;
    const unicode = domainToUnicode(u.hostname);
    if (!unicode) return url;
    const at = url.indexOf(u.hostname);
    return at < 0 ? url : url.slice(0, at) + unicode + url.slice(at + u.hostname.length);
  } catch {
    return url;
  }
}

/** The audited host as a person reads it: IDNs in Unicode, no scheme. */
export function displayDomain(domain: string): { unicode: string; ascii: string } {
  try {
    const url = new URL(domain);
    const ascii = url.hostname;
    const unicode = domainToUnicode(ascii) || ascii;
    const port = url.port ? `:${url.port}` : '';
    return { unicode: unicode + port, ascii: ascii + port };
  } catch {
    return { unicode: domain, ascii: domain };
  }
}

// ── layout ────────────────────────────────────────────────────────────────────────────────────

const PAGE = { width: 595.28, height: 841.89 }; // A4
const MARGIN = { top: 56, bottom: 64, left: 56, right: 56 };
const CONTENT_WIDTH = PAGE.width - MARGIN.left - MARGIN.right;
const MAX_URLS_PER_FINDING = 8;

interface TocEntry {
  title: string;
  level: 0 | 1;
  page: number;
}

type Doc = PDFKit.PDFDocument;

class ReportWriter {
  readonly toc: TocEntry[] = [];
  private readonly covers = new Map<FontName, (cp: number) => boolean>();

  constructor(
    readonly doc: Doc,
    readonly audit: AuditJson,
    readonly branding: Branding,
    readonly branded: boolean,
    readonly generatedAt: Date,
    readonly hasFallback: boolean,
    readonly sample: boolean,
  ) {}

  get bottom(): number {
    return PAGE.height - MARGIN.bottom;
  }

  /** 1-based number of the page being written. */
  get pageNumber(): number {
    const r = this.doc.bufferedPageRange();
    return r.start + r.count;
  }

  ensure(height: number): void {
    if (this.doc.y + height > this.bottom) this.doc.addPage();
  }

  private coverage(font: FontName): (cp: number) => boolean {
    let f = this.covers.get(font);
    if (!f) {
      this.doc.font(font);
      const embedded = (this.doc as unknown as { _font: { font: { hasGlyphForCodePoint(cp: number): boolean } } })._font.font;
      f = (cp) => embedded.hasGlyphForCodePoint(cp);
      this.covers.set(font, f);
    }
    return f;
  }

  covered(text: string, font: FontName): boolean {
    const has = this.coverage(font);
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp <= 0x20) continue;
      if (!has(cp)) return false;
    }
    return true;
  }

  /** The font to set `text` in: `preferred` when it has every glyph, else the fallback when that does. */
  fontFor(text: string, preferred: FontName): FontName | null {
    if (this.covered(text, preferred)) return preferred;
    if (this.hasFallback && this.covered(text, 'fallback')) return 'fallback';
    return null;
  }

  /** The domain for display: Unicode when a font can show it, else its ASCII form. */
  domainText(preferred: FontName): { text: string; font: FontName } {
    const d = displayDomain(this.audit.domain);
    const font = this.fontFor(d.unicode, preferred);
    return font ? { text: d.unicode, font } : { text: d.ascii, font: preferred };
  }

  heading(title: string, toc: 0 | 1 | null, opts: { newPage?: boolean } = {}): void {
    const doc = this.doc;
    if (opts.newPage) doc.addPage();
    else this.ensure(toc === 0 ? 90 : 70);
    if (toc !== null) this.toc.push({ title, level: toc, page: this.pageNumber });
    const size = toc === 0 ? 22 : 15;
    doc.font('bold').fontSize(size).fillColor(this.branding.primaryColor)
      .text(title, MARGIN.left, doc.y, { width: CONTENT_WIDTH });
    if (toc === 0) {
      const y = doc.y + 4;
      doc.moveTo(MARGIN.left, y).lineTo(MARGIN.left + CONTENT_WIDTH, y).lineWidth(1.5)
        .strokeColor(this.branding.primaryColor).stroke();
      doc.y = y + 12;
    } else {
      doc.moveDown(0.4);
    }
    doc.fillColor(TEXT);
  }

  /** "Label: text" paragraph, the label in bold. */
  labelled(label: string, text: string, font: FontName = 'body', size = 9.5): void {
    const doc = this.doc;
    this.ensure(28);
    doc.font('bold').fontSize(size).fillColor(TEXT).text(`${label} `, MARGIN.left + 10, doc.y, { continued: true, width: CONTENT_WIDTH - 10 });
    doc.font(font).text(text, { width: CONTENT_WIDTH - 10 });
    doc.moveDown(0.25);
  }

  // ── cover ─────────────────────────────────────────────────────────────────────────────────

  cover(): void {
    const doc = this.doc;
    const { audit, branding } = this;
    const bandHeight = 150;
    doc.rect(0, 0, PAGE.width, bandHeight).fill(branding.primaryColor);
    let nameX = MARGIN.left;
    if (branding.logo) {
      doc.image(branding.logo, MARGIN.left, 40, { fit: [140, 70], valign: 'center' });
      nameX = MARGIN.left + 160;
    }
    const nameFont = this.fontFor(branding.displayName, 'bold') ?? 'bold';
    doc.font(nameFont).fontSize(20).fillColor('#ffffff')
      .text(branding.displayName, nameX, 62, { width: PAGE.width - nameX - MARGIN.right, lineBreak: false, ellipsis: true });

    doc.font('body').fontSize(14).fillColor(MUTED).text('Website audit', MARGIN.left, 200, { width: CONTENT_WIDTH });
    const domain = this.domainText('bold');
    let size = 34;
    doc.font(domain.font).fontSize(size);
    while (size > 14 && doc.widthOfString(domain.text) > CONTENT_WIDTH) doc.fontSize(--size);
    doc.fillColor(TEXT).text(domain.text, MARGIN.left, 222, { width: CONTENT_WIDTH });
    doc.moveDown(0.3);
    doc.font('body').fontSize(11).fillColor(MUTED)
      .text(`Report date: ${formatDate(this.generatedAt)}`, { width: CONTENT_WIDTH })
      .text(`Audit completed: ${formatDate(new Date(audit.completed_at))} · ${audit.crawl.pages_crawled} pages crawled · ${audit.findings.length} findings`, { width: CONTENT_WIDTH });

    if (this.sample) {
      doc.rect(MARGIN.left, 318, CONTENT_WIDTH, 26).fill('#fff4d6');
      doc.font('bold').fontSize(10).fillColor('#8a5a00').text(SAMPLE_NOTICE, MARGIN.left, 326, { width: CONTENT_WIDTH, align: 'center' });
    }
    this.dial(PAGE.width / 2, 500, 110, audit.score, audit.grade);

    if (branding.contactLine) {
      const font = this.fontFor(branding.contactLine, 'body') ?? 'body';
      doc.font('bold').fontSize(10).fillColor(TEXT).text(`Prepared by ${branding.displayName}`, MARGIN.left, 700, { width: CONTENT_WIDTH, align: 'center' });
      doc.font(font).fontSize(10).fillColor(MUTED).text(branding.contactLine, { width: CONTENT_WIDTH, align: 'center' });
    } else if (this.branded) {
      doc.font('bold').fontSize(10).fillColor(TEXT).text(`Prepared by ${branding.displayName}`, MARGIN.left, 700, { width: CONTENT_WIDTH, align: 'center' });
    }
  }

  /** A 270° gauge: grey track, coloured arc for the score, score and grade in the middle. */
  private dial(cx: number, cy: number, r: number, score: number, grade: string): void {
    const doc = this.doc;
    const start = 135; // degrees, clockwise from +x (PDF y grows downwards, as in SVG)
    const sweep = 270;
    const point = (deg: number) => {
      const rad = (deg * Math.PI) / 180;
      return [cx + r * Math.cos(rad), cy + r * Math.sin(rad)] as const;
    };
    const arc = (from: number, to: number) => {
      const [x1, y1] = point(from);
      const [x2, y2] = point(to);
      const large = to - from > 180 ? 1 : 0;
      return `M ${x1.toFixed(2)} ${y1.toFixed(2)} A ${r} ${r} 0 ${large} 1 ${x2.toFixed(2)} ${y2.toFixed(2)}`;
    };
    doc.save();
    doc.lineWidth(18).lineCap('round');
    doc.path(arc(start, start + sweep)).strokeColor(RULE).stroke();
    if (score > 0) doc.path(arc(start, start + (sweep * Math.min(100, score)) / 100)).strokeColor(scoreColor(score)).stroke();
    doc.restore();
    doc.font('bold').fontSize(54).fillColor(TEXT).text(String(score), cx - r, cy - 42, { width: 2 * r, align: 'center' });
    doc.font('body').fontSize(11).fillColor(MUTED).text('out of 100', cx - r, cy + 18, { width: 2 * r, align: 'center' });
    doc.font('bold').fontSize(16).fillColor(scoreColor(score)).text(`Grade ${grade}`, cx - r, cy + r - 10, { width: 2 * r, align: 'center' });
    doc.fillColor(TEXT);
  }

  // ── summary ───────────────────────────────────────────────────────────────────────────────

  summary(): void {
    const doc = this.doc;
    const { audit } = this;
    this.heading('Summary', 0, { newPage: true });
    const domain = this.domainText('body');
    doc.font('body').fontSize(10.5).fillColor(TEXT).text('The site ', { continued: true })
      .font(domain.font).text(domain.text, { continued: true })
      .font('body').text(` scored ${audit.score} out of 100 (grade ${audit.grade}). ${audit.crawl.pages_crawled} pages were crawled and ${audit.analyzers.length} checks were run; they found ${audit.findings.length} issues.`, { width: CONTENT_WIDTH });
    doc.moveDown(1);

    this.heading('Category scores', null);
    const labelW = 170;
    const barX = MARGIN.left + labelW;
    const barW = CONTENT_WIDTH - labelW - 50;
    for (const cat of CATEGORIES) {
      const c = audit.categories[cat];
      if (!c) continue;
      this.ensure(22);
      const y = doc.y;
      doc.font('body').fontSize(10).fillColor(TEXT).text(CATEGORY_LABELS[cat], MARGIN.left, y + 1, { width: labelW - 10, lineBreak: false });
      doc.rect(barX, y, barW, 12).fill(RULE);
      if (c.score > 0) doc.rect(barX, y, (barW * c.score) / 100, 12).fill(scoreColor(c.score));
      doc.font('bold').fontSize(10).fillColor(TEXT).text(String(c.score), barX + barW + 10, y + 1, { width: 40, lineBreak: false });
      doc.x = MARGIN.left;
      doc.y = y + 20;
    }
    doc.moveDown(1);

    this.heading('Issues by severity', null);
    this.ensure(60);
    const counts = new Map<Severity, number>(SEVERITIES.map((s) => [s, 0]));
    for (const f of audit.findings) counts.set(f.severity, counts.get(f.severity)! + 1);
    const boxW = (CONTENT_WIDTH - 4 * 8) / 5;
    const y = doc.y;
    SEVERITIES.forEach((s, i) => {
      const x = MARGIN.left + i * (boxW + 8);
      doc.roundedRect(x, y, boxW, 50, 4).fill(SEVERITY_COLORS[s]);
      doc.font('bold').fontSize(18).fillColor('#ffffff').text(String(counts.get(s)), x, y + 7, { width: boxW, align: 'center', lineBreak: false });
      doc.font('body').fontSize(9).fillColor('#ffffff').text(SEVERITY_LABELS[s], x, y + 32, { width: boxW, align: 'center', lineBreak: false });
    });
    doc.x = MARGIN.left;
    doc.y = y + 66;
    doc.fillColor(TEXT);

    this.heading('Top five issues', null);
    const top = topIssues(audit.findings, 5);
    if (top.length === 0) {
      doc.font('body').fontSize(10).text('No issues were found.', MARGIN.left, doc.y, { width: CONTENT_WIDTH });
    }
    top.forEach((f, i) => {
      this.ensure(50);
      doc.font('bold').fontSize(10.5).fillColor(TEXT)
        .text(`${i + 1}. ${f.title} `, MARGIN.left, doc.y, { continued: true, width: CONTENT_WIDTH })
        .fillColor(SEVERITY_COLORS[f.severity]).text(`(${SEVERITY_LABELS[f.severity]}, ${CATEGORY_LABELS[f.category]})`);
      doc.font('body').fontSize(9.5).fillColor(TEXT).text(f.recommendation, MARGIN.left + 14, doc.y, { width: CONTENT_WIDTH - 14 });
      doc.moveDown(0.5);
    });
  }

  // ── findings ──────────────────────────────────────────────────────────────────────────────

  findings(): void {
    const doc = this.doc;
    const { audit } = this;
    this.heading('Findings', 0, { newPage: true });
    doc.font('body').fontSize(10).fillColor(MUTED)
      .text('Every issue the audit found, grouped by category and ordered from most to least severe.', { width: CONTENT_WIDTH });
    doc.moveDown(0.8);
    const byCategory = new Map<Category, Finding[]>();
    for (const f of audit.findings) {
      const list = byCategory.get(f.category) ?? [];
      list.push(f);
      byCategory.set(f.category, list);
    }
    if (byCategory.size === 0) {
      doc.font('body').fontSize(10.5).fillColor(TEXT).text('No issues were found.', { width: CONTENT_WIDTH });
      return;
    }
    let first = true;
    for (const cat of CATEGORIES) {
      const list = byCategory.get(cat);
      if (!list) continue;
      list.sort(compareFindings);
      const score = audit.categories[cat]?.score;
      this.heading(`${CATEGORY_LABELS[cat]}${score === undefined ? '' : ` — score ${score}`}`, 1, { newPage: !first });
      first = false;
      for (const sev of SEVERITIES) {
        const group = list.filter((f) => f.severity === sev);
        if (group.length === 0) continue;
        this.ensure(90);
        doc.font('bold').fontSize(11.5).fillColor(SEVERITY_COLORS[sev])
          .text(`${SEVERITY_LABELS[sev]} (${group.length})`, MARGIN.left, doc.y, { width: CONTENT_WIDTH });
        doc.moveDown(0.3);
        for (const f of group) this.finding(f);
      }
    }
  }

  private finding(f: Finding): void {
    const doc = this.doc;
    this.ensure(80);
    const y = doc.y;
    doc.rect(MARGIN.left, y + 2, 3, 10).fill(SEVERITY_COLORS[f.severity]);
    doc.font('bold').fontSize(10.5).fillColor(TEXT).text(f.title, MARGIN.left + 10, y, { width: CONTENT_WIDTH - 10 });
    doc.moveDown(0.2);
    this.labelled('What we found:', f.message);
    if (f.urls.length > 0) {
      const shown = f.urls.slice(0, MAX_URLS_PER_FINDING);
      const more = f.urls.length - shown.length;
      this.ensure(24);
      doc.font('bold').fontSize(9.5).fillColor(TEXT).text('Where:', MARGIN.left + 10, doc.y, { width: CONTENT_WIDTH - 10 });
      doc.font('body').fontSize(8.5).fillColor(MUTED);
      for (const raw of shown) {
        const unicode = displayUrl(raw);
        const font = this.fontFor(unicode, 'body');
        const url = font ? unicode : raw;
        doc.font(font ?? 'body').text(`• ${url}`, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
      }
      if (more > 0) doc.font('body').text(`… and ${more} more`, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
      doc.fillColor(TEXT);
      doc.moveDown(0.25);
    }
    if (f.evidence) {
      this.ensure(24);
      doc.font('bold').fontSize(9.5).fillColor(TEXT).text('Evidence:', MARGIN.left + 10, doc.y, { width: CONTENT_WIDTH - 10 });
      doc.font('mono').fontSize(8).fillColor('#374151').text(f.evidence, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
      doc.fillColor(TEXT);
      doc.moveDown(0.25);
    }
    const entry = findCatalogEntry(f.analyzer);
    if (entry) this.labelled('Why it matters:', entry.why);
    this.labelled('How to fix:', f.recommendation);
    doc.x = MARGIN.left;
    doc.moveDown(0.6);
  }

  // ── appendix ──────────────────────────────────────────────────────────────────────────────

  appendix(): void {
    const doc = this.doc;
    this.heading('Appendix: checks run', 0, { newPage: true });
    doc.font('body').fontSize(10).fillColor(MUTED)
      .text('Every check of the audit with its outcome. The score is the share of the check that passed (for page checks, the share of pages).', { width: CONTENT_WIDTH });
    doc.moveDown(0.8);
    const cols = [
      { title: 'Check', x: MARGIN.left, w: 235 },
      { title: 'Category', x: MARGIN.left + 243, w: 112 },
      { title: 'Status', x: MARGIN.left + 362, w: 78 },
      { title: 'Score', x: MARGIN.left + 445, w: CONTENT_WIDTH - 445 },
    ] as const;
    const header = () => {
      const y = doc.y;
      doc.font('bold').fontSize(9).fillColor(MUTED);
      for (const c of cols) doc.text(c.title, c.x, y, { width: c.w, lineBreak: false });
      doc.moveTo(MARGIN.left, y + 13).lineTo(MARGIN.left + CONTENT_WIDTH, y + 13).lineWidth(0.8).strokeColor(RULE).stroke();
      doc.y = y + 18;
    };
    header();
    for (const a of this.audit.analyzers) {
      doc.font('body').fontSize(8.5);
      const titleH = doc.heightOfString(a.title, { width: cols[0].w }) + 11;
      const categoryH = doc.heightOfString(CATEGORY_LABELS[a.category], { width: cols[1].w });
      const rowH = Math.max(titleH, categoryH) + 6;
      if (doc.y + rowH > this.bottom) {
        doc.addPage();
        header();
      }
      const y = doc.y;
      doc.font('body').fontSize(8.5).fillColor(TEXT).text(a.title, cols[0].x, y, { width: cols[0].w });
      doc.font('mono').fontSize(7).fillColor(MUTED).text(a.code, cols[0].x, doc.y + 1, { width: cols[0].w, lineBreak: false });
      doc.font('body').fontSize(8.5).fillColor(TEXT).text(CATEGORY_LABELS[a.category], cols[1].x, y, { width: cols[1].w });
      doc.font('bold').fillColor(STATUS_COLORS[a.status]).text(STATUS_LABELS[a.status], cols[2].x, y, { width: cols[2].w, lineBreak: false });
      const score = a.status === 'not_applicable' || a.status === 'error' ? '—' : `${Math.round(a.score * 100)}%`;
      doc.font('body').fillColor(TEXT).text(score, cols[3].x, y, { width: cols[3].w, lineBreak: false });
      doc.moveTo(MARGIN.left, y + rowH - 3).lineTo(MARGIN.left + CONTENT_WIDTH, y + rowH - 3).lineWidth(0.5).strokeColor(RULE).stroke();
      doc.x = MARGIN.left;
      doc.y = y + rowH;
    }
  }

  // ── contents and page furniture (written last, into buffered pages) ───────────────────────

  contents(pageIndex: number): void {
    const doc = this.doc;
    doc.switchToPage(pageIndex);
    doc.x = MARGIN.left;
    doc.y = MARGIN.top;
    doc.font('bold').fontSize(22).fillColor(this.branding.primaryColor).text('Contents', MARGIN.left, MARGIN.top, { width: CONTENT_WIDTH });
    const y0 = doc.y + 4;
    doc.moveTo(MARGIN.left, y0).lineTo(MARGIN.left + CONTENT_WIDTH, y0).lineWidth(1.5).strokeColor(this.branding.primaryColor).stroke();
    let y = y0 + 18;
    for (const e of this.toc) {
      const indent = e.level === 0 ? 0 : 18;
      const size = e.level === 0 ? 12 : 10.5;
      doc.font(e.level === 0 ? 'bold' : 'body').fontSize(size).fillColor(TEXT);
      const label = e.title;
      const num = String(e.page);
      const labelW = doc.widthOfString(label);
      const numW = doc.widthOfString(num);
      doc.text(label, MARGIN.left + indent, y, { lineBreak: false });
      doc.text(num, MARGIN.left + CONTENT_WIDTH - numW, y, { lineBreak: false });
      // Dot leader.
      const dotsFrom = MARGIN.left + indent + labelW + 6;
      const dotsTo = MARGIN.left + CONTENT_WIDTH - numW - 6;
      if (dotsTo > dotsFrom) {
        doc.save().moveTo(dotsFrom, y + size * 0.85).lineTo(dotsTo, y + size * 0.85)
          .dash(1, { space: 3 }).lineWidth(0.6).strokeColor(MUTED).stroke().restore();
      }
      y += e.level === 0 ? 24 : 18;
    }
  }

  footers(): void {
    const doc = this.doc;
    const range = doc.bufferedPageRange();
    const total = range.count;
    const domain = this.domainText('body');
    const left = this.branding.footerText ?? (this.branded ? this.branding.displayName : '');
    // A sample report names itself where real ones name the domain.
    const middle = this.sample ? { text: 'SAMPLE REPORT — test mode', font: 'bold' as FontName } : domain;
    for (let i = range.start; i < range.start + range.count; i++) {
      doc.switchToPage(i);
      const bottom = doc.page.margins.bottom;
      doc.page.margins.bottom = 0;
      const y = PAGE.height - 40;
      if (i > range.start) {
        doc.moveTo(MARGIN.left, y - 8).lineTo(MARGIN.left + CONTENT_WIDTH, y - 8).lineWidth(0.5).strokeColor(RULE).stroke();
      }
      const leftFont = this.fontFor(left, 'body') ?? 'body';
      doc.font(leftFont).fontSize(8).fillColor(MUTED);
      // A long footer text gets a line of its own (cut with an ellipsis past the full width).
      const ownLine = doc.widthOfString(left) > CONTENT_WIDTH * 0.45;
      const row = ownLine ? y + 7 : y;
      if (ownLine) doc.text(fitted(doc, left, CONTENT_WIDTH), MARGIN.left, y - 4, { width: CONTENT_WIDTH, lineBreak: false });
      else doc.text(left, MARGIN.left, y, { width: CONTENT_WIDTH * 0.45, lineBreak: false });
      doc.font(middle.font).fontSize(8).text(fitted(doc, middle.text, CONTENT_WIDTH * 0.3), MARGIN.left + CONTENT_WIDTH * 0.45, row, { width: CONTENT_WIDTH * 0.3, align: 'center', lineBreak: false });
      doc.font('body').fontSize(8).text(`Page ${i - range.start + 1} of ${total}`, MARGIN.left + CONTENT_WIDTH * 0.75, row, { width: CONTENT_WIDTH * 0.25, align: 'right', lineBreak: false });
      doc.page.margins.bottom = bottom;
    }
  }
}

/** `text` cut to fit `width` in the current font, ending in an ellipsis when cut. */
function fitted(doc: Doc, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  const chars = [...text];
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (doc.widthOfString(`${chars.slice(0, mid).join('').trimEnd()}…`) <= width) lo = mid;
    else hi = mid - 1;
  }
  return `${chars.slice(0, lo).join('').trimEnd()}…`;
}

/** Most severe first, then catalog order, then most pages affected, then id. */
function compareFindings(a: Finding, b: Finding): number {
  return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]
    || catalogIndex(a.analyzer) - catalogIndex(b.analyzer)
    || b.urls.length - a.urls.length
    || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The `n` most severe issues, one per analyzer. */
export function topIssues(findings: readonly Finding[], n: number): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of [...findings].sort(compareFindings)) {
    if (f.severity === 'info' || seen.has(f.analyzer)) continue;
    seen.add(f.analyzer);
    out.push(f);
    if (out.length === n) break;
  }
  return out;
}

/**
 * Renders the audit as a PDF. `branding` must already be validated (validateBranding); null gives
 * the neutral, unbranded report.
 */
export async function renderAuditReport(audit: AuditJson, branding: Branding | null, opts: RenderOptions = {}): Promise<Buffer> {
  const generatedAt = opts.generatedAt ?? new Date();
  const brand: Branding = branding ?? { ...NEUTRAL_BRANDING };
  const domain = displayDomain(audit.domain);
  const producer = branding ? branding.displayName : NEUTRAL_BRANDING.displayName;
  const doc = new PDFDocument({
    size: 'A4',
    margins: MARGIN,
    bufferPages: true,
    autoFirstPage: true,
    compress: true,
    // 1.3: pdfkit then writes no XMP packet. It would interpolate Title/Author unescaped into XML,
    // so an agency called "Smith & Jones" would produce malformed metadata; the Info dictionary
    // carries the same fields and is escaped properly.
    pdfVersion: '1.3',
    lang: 'en',
    displayTitle: true,
    info: {
      Title: `Website audit: ${domain.unicode}`,
      Author: brand.displayName,
      Subject: `Audit of ${domain.unicode}: score ${audit.score} (grade ${audit.grade})`,
      Creator: producer,
      Producer: producer,
      CreationDate: generatedAt,
      ModDate: generatedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const f = fonts();
  doc.registerFont('body', f.body);
  doc.registerFont('bold', f.bold);
  doc.registerFont('mono', f.mono);
  if (f.fallback) {
    if (f.fallback.family) doc.registerFont('fallback', f.fallback.data, f.fallback.family);
    else doc.registerFont('fallback', f.fallback.data);
  }
  doc.font('body');

  try {
    const w = new ReportWriter(doc, audit, brand, branding !== null, generatedAt, f.fallback !== null, opts.sample === true);
    w.cover();
    doc.addPage(); // contents, filled in once every section's page is known
    const contentsIndex = doc.bufferedPageRange().count - 1;
    w.summary();
    w.findings();
    w.appendix();
    w.contents(contentsIndex);
    w.footers();
  } catch (err) {
    doc.end();
    await done.catch(() => undefined);
    throw err;
  }
  doc.end();
  return done;
}

/**
 * Throws a BrandingError when pdfkit cannot embed the logo. A file can carry a PNG or JPEG
 * signature and still be unreadable; finding out when the branding is saved beats failing every
 * later render.
 */
export async function checkLogoEmbeds(logo: Buffer): Promise<void> {
  const doc = new PDFDocument({ autoFirstPage: true, compress: false });
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('data', () => undefined);
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  try {
    doc.image(logo, 0, 0, { fit: [140, 70] });
    doc.end();
    await ended;
  } catch (err) {
    throw new BrandingError('logo', `could not be read as an image (${(err as Error).message})`);
  }
}
