import { CATEGORY_LABELS, STATUS_LABELS } from './labels';
import { CONTENT_WIDTH, MARGIN, MUTED, RULE, STATUS_COLORS, TEXT } from './theme';
import type { ReportWriter } from './writer';

const COLUMNS = [
  { title: 'Check', x: MARGIN.left, w: 235 },
  { title: 'Category', x: MARGIN.left + 243, w: 112 },
  { title: 'Status', x: MARGIN.left + 362, w: 78 },
  { title: 'Score', x: MARGIN.left + 445, w: CONTENT_WIDTH - 445 },
] as const;

/** The appendix: a table of every analyzer with its category, status and score. */
export function writeAppendix(w: ReportWriter): void {
  const doc = w.doc;
  w.heading('Appendix: checks run', 0, { newPage: true });
  doc
    .font('body')
    .fontSize(10)
    .fillColor(MUTED)
    .text(
      'Every check of the audit with its outcome. The score is the share of the check that passed (for page checks, the share of pages).',
      { width: CONTENT_WIDTH },
    );
  doc.moveDown(0.8);
  writeHeaderRow(doc);
  const [check, category, status, score] = COLUMNS;
  for (const a of w.report.audit.analyzers) {
    doc.font('body').fontSize(8.5);
    const titleH = doc.heightOfString(a.title, { width: check.w }) + 11;
    const categoryH = doc.heightOfString(CATEGORY_LABELS[a.category], { width: category.w });
    const rowH = Math.max(titleH, categoryH) + 6;
    if (doc.y + rowH > w.bottom) {
      doc.addPage();
      writeHeaderRow(doc);
    }
    const y = doc.y;
    doc.font('body').fontSize(8.5).fillColor(TEXT).text(a.title, check.x, y, { width: check.w });
    doc
      .font('mono')
      .fontSize(7)
      .fillColor(MUTED)
      .text(a.code, check.x, doc.y + 1, { width: check.w, lineBreak: false });
    doc
      .font('body')
      .fontSize(8.5)
      .fillColor(TEXT)
      .text(CATEGORY_LABELS[a.category], category.x, y, { width: category.w });
    doc
      .font('bold')
      .fillColor(STATUS_COLORS[a.status])
      .text(STATUS_LABELS[a.status], status.x, y, { width: status.w, lineBreak: false });
    const shown = a.status === 'not_applicable' || a.status === 'error' ? '—' : `${Math.round(a.score * 100)}%`;
    doc.font('body').fillColor(TEXT).text(shown, score.x, y, { width: score.w, lineBreak: false });
    doc
      .moveTo(MARGIN.left, y + rowH - 3)
      .lineTo(MARGIN.left + CONTENT_WIDTH, y + rowH - 3)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    doc.x = MARGIN.left;
    doc.y = y + rowH;
  }
}

/** Column titles over a rule; repeated at the top of every page the table continues on. */
function writeHeaderRow(doc: PDFKit.PDFDocument): void {
  const y = doc.y;
  doc.font('bold').fontSize(9).fillColor(MUTED);
  for (const c of COLUMNS) doc.text(c.title, c.x, y, { width: c.w, lineBreak: false });
  doc
    .moveTo(MARGIN.left, y + 13)
    .lineTo(MARGIN.left + CONTENT_WIDTH, y + 13)
    .lineWidth(0.8)
    .strokeColor(RULE)
    .stroke();
  doc.y = y + 18;
}
