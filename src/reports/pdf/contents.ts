import { CONTENT_WIDTH, MARGIN, MUTED, TEXT } from './theme';
import type { ReportWriter } from './writer';

/**
 * The contents page, written last into the page reserved for it (pages are buffered), once every
 * heading's page number is known: one line per entry with a dot leader to its page number.
 */
export function writeContents(w: ReportWriter, pageIndex: number): void {
  const doc = w.doc;
  const color = w.report.branding.primaryColor;
  doc.switchToPage(pageIndex);
  doc.x = MARGIN.left;
  doc.y = MARGIN.top;
  doc.font('bold').fontSize(22).fillColor(color).text('Contents', MARGIN.left, MARGIN.top, { width: CONTENT_WIDTH });
  const y0 = doc.y + 4;
  doc
    .moveTo(MARGIN.left, y0)
    .lineTo(MARGIN.left + CONTENT_WIDTH, y0)
    .lineWidth(1.5)
    .strokeColor(color)
    .stroke();
  let y = y0 + 18;
  for (const e of w.toc) {
    const indent = e.level === 0 ? 0 : 18;
    const size = e.level === 0 ? 12 : 10.5;
    doc
      .font(e.level === 0 ? 'bold' : 'body')
      .fontSize(size)
      .fillColor(TEXT);
    const num = String(e.page);
    const labelW = doc.widthOfString(e.title);
    const numW = doc.widthOfString(num);
    doc.text(e.title, MARGIN.left + indent, y, { lineBreak: false });
    doc.text(num, MARGIN.left + CONTENT_WIDTH - numW, y, { lineBreak: false });
    const dotsFrom = MARGIN.left + indent + labelW + 6;
    const dotsTo = MARGIN.left + CONTENT_WIDTH - numW - 6;
    if (dotsTo > dotsFrom) {
      doc
        .save()
        .moveTo(dotsFrom, y + size * 0.85)
        .lineTo(dotsTo, y + size * 0.85)
        .dash(1, { space: 3 })
        .lineWidth(0.6)
        .strokeColor(MUTED)
        .stroke()
        .restore();
    }
    y += e.level === 0 ? 24 : 18;
  }
}
