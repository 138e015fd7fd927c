import type { FontName } from './fonts';
import { CONTENT_WIDTH, MARGIN, MUTED, PAGE, RULE } from './theme';
import { fitted, type ReportWriter } from './writer';

/**
 * Every page's footer, written last into the buffered pages: the agency's footer text (or name) on
 * the left, the domain (or the sample marker) in the middle, "Page N of M" on the right.
 */
export function writeFooters(w: ReportWriter): void {
  const doc = w.doc;
  const { branding, branded, sample } = w.report;
  const range = doc.bufferedPageRange();
  const total = range.count;
  const domain = w.domainText('body');
  const left = branding.footerText ?? (branded ? branding.displayName : '');
  // A sample report names itself where real ones name the domain.
  const middle = sample ? { text: 'SAMPLE REPORT — test mode', font: 'bold' as FontName } : domain;
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const y = PAGE.height - 40;
    if (i > range.start) {
      doc
        .moveTo(MARGIN.left, y - 8)
        .lineTo(MARGIN.left + CONTENT_WIDTH, y - 8)
        .lineWidth(0.5)
        .strokeColor(RULE)
        .stroke();
    }
    const leftFont = w.fontFor(left, 'body') ?? 'body';
    doc.font(leftFont).fontSize(8).fillColor(MUTED);
    // A long footer text gets a line of its own (cut with an ellipsis past the full width).
    const ownLine = doc.widthOfString(left) > CONTENT_WIDTH * 0.45;
    const row = ownLine ? y + 7 : y;
    if (ownLine)
      doc.text(fitted(doc, left, CONTENT_WIDTH), MARGIN.left, y - 4, { width: CONTENT_WIDTH, lineBreak: false });
    else doc.text(left, MARGIN.left, y, { width: CONTENT_WIDTH * 0.45, lineBreak: false });
    doc
      .font(middle.font)
      .fontSize(8)
      .text(fitted(doc, middle.text, CONTENT_WIDTH * 0.3), MARGIN.left + CONTENT_WIDTH * 0.45, row, {
        width: CONTENT_WIDTH * 0.3,
        align: 'center',
        lineBreak: false,
      });
    doc
      .font('body')
      .fontSize(8)
      .text(`Page ${i - range.start + 1} of ${total}`, MARGIN.left + CONTENT_WIDTH * 0.75, row, {
        width: CONTENT_WIDTH * 0.25,
        align: 'right',
        lineBreak: false,
      });
    doc.page.margins.bottom = bottom;
  }
}
