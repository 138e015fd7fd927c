import { CATEGORIES, SEVERITIES, type Severity } from '../../schemas/audit';
import { topIssues } from './finding-order';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './labels';
import { CONTENT_WIDTH, MARGIN, RULE, scoreColor, SEVERITY_COLORS, TEXT } from './theme';
import type { ReportWriter } from './writer';

/** The summary section: the score in a sentence, category bars, counts by severity, the top five issues. */
export function writeSummary(w: ReportWriter): void {
  const doc = w.doc;
  const { audit } = w.report;
  w.heading('Summary', 0, { newPage: true });
  const domain = w.domainText('body');
  doc
    .font('body')
    .fontSize(10.5)
    .fillColor(TEXT)
    .text('The site ', { continued: true })
    .font(domain.font)
    .text(domain.text, { continued: true })
    .font('body')
    .text(
      ` scored ${audit.score} out of 100 (grade ${audit.grade}). ${audit.crawl.pages_crawled} pages were crawled and ${audit.analyzers.length} checks were run; they found ${audit.findings.length} issues.`,
      { width: CONTENT_WIDTH },
    );
  doc.moveDown(1);
  writeCategoryScores(w);
  writeSeverityCounts(w);
  writeTopIssues(w);
}

function writeCategoryScores(w: ReportWriter): void {
  const doc = w.doc;
  w.heading('Category scores', null);
  const labelW = 170;
  const barX = MARGIN.left + labelW;
  const barW = CONTENT_WIDTH - labelW - 50;
  for (const cat of CATEGORIES) {
    const c = w.report.audit.categories[cat];
    if (!c) continue;
    w.ensure(22);
    const y = doc.y;
    doc
      .font('body')
      .fontSize(10)
      .fillColor(TEXT)
      .text(CATEGORY_LABELS[cat], MARGIN.left, y + 1, { width: labelW - 10, lineBreak: false });
    doc.rect(barX, y, barW, 12).fill(RULE);
    if (c.score > 0) doc.rect(barX, y, (barW * c.score) / 100, 12).fill(scoreColor(c.score));
    doc
      .font('bold')
      .fontSize(10)
      .fillColor(TEXT)
      .text(String(c.score), barX + barW + 10, y + 1, { width: 40, lineBreak: false });
    doc.x = MARGIN.left;
    doc.y = y + 20;
  }
  doc.moveDown(1);
}

/** Five coloured boxes, critical to info, each with its number of findings. */
function writeSeverityCounts(w: ReportWriter): void {
  const doc = w.doc;
  w.heading('Issues by severity', null);
  w.ensure(60);
  const counts = new Map<Severity, number>(SEVERITIES.map((s) => [s, 0]));
  for (const f of w.report.audit.findings) counts.set(f.severity, counts.get(f.severity)! + 1);
  const boxW = (CONTENT_WIDTH - 4 * 8) / 5;
  const y = doc.y;
  SEVERITIES.forEach((s, i) => {
    const x = MARGIN.left + i * (boxW + 8);
    doc.roundedRect(x, y, boxW, 50, 4).fill(SEVERITY_COLORS[s]);
    doc
      .font('bold')
      .fontSize(18)
      .fillColor('#ffffff')
      .text(String(counts.get(s)), x, y + 7, { width: boxW, align: 'center', lineBreak: false });
    doc
      .font('body')
      .fontSize(9)
      .fillColor('#ffffff')
      .text(SEVERITY_LABELS[s], x, y + 32, { width: boxW, align: 'center', lineBreak: false });
  });
  doc.x = MARGIN.left;
  doc.y = y + 66;
  doc.fillColor(TEXT);
}

function writeTopIssues(w: ReportWriter): void {
  const doc = w.doc;
  w.heading('Top five issues', null);
  const top = topIssues(w.report.audit.findings, 5);
  if (top.length === 0) {
    doc.font('body').fontSize(10).text('No issues were found.', MARGIN.left, doc.y, { width: CONTENT_WIDTH });
  }
  top.forEach((f, i) => {
    w.ensure(50);
    doc
      .font('bold')
      .fontSize(10.5)
      .fillColor(TEXT)
      .text(`${i + 1}. ${f.title} `, MARGIN.left, doc.y, { continued: true, width: CONTENT_WIDTH })
      .fillColor(SEVERITY_COLORS[f.severity])
      .text(`(${SEVERITY_LABELS[f.severity]}, ${CATEGORY_LABELS[f.category]})`);
    doc.fontSize(9.5).fillColor(TEXT);
    w.codeText(f.recommendation, CONTENT_WIDTH - 14, MARGIN.left + 14);
    doc.moveDown(0.5);
  });
}
