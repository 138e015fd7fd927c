import type { AuditJson } from '../../schemas/audit';
import type { Branding } from '../branding';
import { codeSpans } from './code-spans';
import { displayDomain } from './display-names';
import { FontPicker, type FontName } from './fonts';
import { CONTENT_WIDTH, MARGIN, PAGE, TEXT } from './theme';

/** What every section of the report draws from. */
export interface ReportContext {
  audit: AuditJson;
  /** The agency's branding, or the neutral look. */
  branding: Branding;
  /** False for the neutral report, which names no agency. */
  branded: boolean;
  generatedAt: Date;
  /** A test-mode report, marked as sample data on the cover and in every footer. */
  sample: boolean;
}

interface TocEntry {
  title: string;
  level: 0 | 1;
  page: number;
}

/**
 * The layout primitives the sections share: page breaks, headings (recorded for the contents page),
 * labelled paragraphs, and the choice of a font that can show a text.
 */
export class ReportWriter {
  readonly toc: TocEntry[] = [];
  private readonly fonts: FontPicker;

  constructor(
    readonly doc: PDFKit.PDFDocument,
    readonly report: ReportContext,
    hasFallbackFont: boolean,
  ) {
    this.fonts = new FontPicker(doc, hasFallbackFont);
  }

  get bottom(): number {
    return PAGE.height - MARGIN.bottom;
  }

  /** 1-based number of the page being written. */
  get pageNumber(): number {
    const r = this.doc.bufferedPageRange();
    return r.start + r.count;
  }

  /** Starts a new page unless `height` more points fit on this one. */
  ensure(height: number): void {
    if (this.doc.y + height > this.bottom) this.doc.addPage();
  }

  fontFor(text: string, preferred: FontName): FontName | null {
    return this.fonts.fontFor(text, preferred);
  }

  /** The domain for display: Unicode when a font can show it, else its ASCII form. */
  domainText(preferred: FontName): { text: string; font: FontName } {
    const d = displayDomain(this.report.audit.domain);
    const font = this.fontFor(d.unicode, preferred);
    return font ? { text: d.unicode, font } : { text: d.ascii, font: preferred };
  }

  /** A section (toc 0, ruled) or sub-section (toc 1) heading, listed in the contents; null: not listed. */
  heading(title: string, toc: 0 | 1 | null, opts: { newPage?: boolean } = {}): void {
    const doc = this.doc;
    const color = this.report.branding.primaryColor;
    if (opts.newPage) doc.addPage();
    else this.ensure(toc === 0 ? 90 : 70);
    if (toc !== null) this.toc.push({ title, level: toc, page: this.pageNumber });
    const size = toc === 0 ? 22 : 15;
    doc.font('bold').fontSize(size).fillColor(color).text(title, MARGIN.left, doc.y, { width: CONTENT_WIDTH });
    if (toc === 0) {
      const y = doc.y + 4;
      doc
        .moveTo(MARGIN.left, y)
        .lineTo(MARGIN.left + CONTENT_WIDTH, y)
        .lineWidth(1.5)
        .strokeColor(color)
        .stroke();
      doc.y = y + 12;
    } else {
      doc.moveDown(0.4);
    }
    doc.fillColor(TEXT);
  }

  /** "Label: text" paragraph, the label in bold, `code` in the text set in monospace. */
  labelled(label: string, text: string): void {
    const doc = this.doc;
    this.ensure(28);
    doc
      .font('bold')
      .fontSize(9.5)
      .fillColor(TEXT)
      .text(`${label} `, MARGIN.left + 10, doc.y, { continued: true, width: CONTENT_WIDTH - 10 });
    this.codeText(text, CONTENT_WIDTH - 10);
    doc.moveDown(0.25);
  }

  /**
   * Body text whose backtick-marked parts (`noindex`) are set in monospace, without the backticks.
   * At `x` on the current line, or (no x) continuing the text before it.
   */
  codeText(text: string, width: number, x?: number): void {
    const doc = this.doc;
    const spans = codeSpans(text);
    spans.forEach((span, i) => {
      doc.font(span.code ? 'mono' : 'body');
      const options = { width, continued: i < spans.length - 1 };
      if (i === 0 && x !== undefined) doc.text(span.text, x, doc.y, options);
      else doc.text(span.text, options);
    });
  }
}

/** `text` cut to fit `width` in the current font, ending in an ellipsis when cut. */
export function fitted(doc: PDFKit.PDFDocument, text: string, width: number): string {
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
