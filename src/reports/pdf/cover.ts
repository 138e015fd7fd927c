import { formatDate, SAMPLE_NOTICE } from './labels';
import { CONTENT_WIDTH, MARGIN, MUTED, PAGE, RULE, scoreColor, TEXT } from './theme';
import type { ReportWriter } from './writer';

/** Page 1: the agency's band (name, logo, colour), the client's domain, dates, the score dial. */
export function writeCover(w: ReportWriter): void {
  const doc = w.doc;
  const { audit, branding, branded, generatedAt, sample } = w.report;
  const bandHeight = 150;
  doc.rect(0, 0, PAGE.width, bandHeight).fill(branding.primaryColor);
  let nameX = MARGIN.left;
  if (branding.logo) {
    doc.image(branding.logo, MARGIN.left, 40, { fit: [140, 70], valign: 'center' });
    nameX = MARGIN.left + 160;
  }
  const nameFont = w.fontFor(branding.displayName, 'bold') ?? 'bold';
  doc
    .font(nameFont)
    .fontSize(20)
    .fillColor('#ffffff')
    .text(branding.displayName, nameX, 62, {
      width: PAGE.width - nameX - MARGIN.right,
      lineBreak: false,
      ellipsis: true,
    });

  doc.font('body').fontSize(14).fillColor(MUTED).text('Website audit', MARGIN.left, 200, { width: CONTENT_WIDTH });
  const domain = w.domainText('bold');
  let size = 34;
  doc.font(domain.font).fontSize(size);
  while (size > 14 && doc.widthOfString(domain.text) > CONTENT_WIDTH) doc.fontSize(--size);
  doc.fillColor(TEXT).text(domain.text, MARGIN.left, 222, { width: CONTENT_WIDTH });
  doc.moveDown(0.3);
  doc
    .font('body')
    .fontSize(11)
    .fillColor(MUTED)
    .text(`Report date: ${formatDate(generatedAt)}`, { width: CONTENT_WIDTH })
    .text(
      `Audit completed: ${formatDate(new Date(audit.completed_at))} · ${audit.crawl.pages_crawled} pages crawled · ${audit.findings.length} findings`,
      { width: CONTENT_WIDTH },
    );

  if (sample) {
    doc.rect(MARGIN.left, 318, CONTENT_WIDTH, 26).fill('#fff4d6');
    doc
      .font('bold')
      .fontSize(10)
      .fillColor('#8a5a00')
      .text(SAMPLE_NOTICE, MARGIN.left, 326, { width: CONTENT_WIDTH, align: 'center' });
  }
  drawScoreDial(doc, PAGE.width / 2, 500, 110, audit.score, audit.grade);

  if (branding.contactLine) {
    const font = w.fontFor(branding.contactLine, 'body') ?? 'body';
    doc
      .font('bold')
      .fontSize(10)
      .fillColor(TEXT)
      .text(`Prepared by ${branding.displayName}`, MARGIN.left, 700, { width: CONTENT_WIDTH, align: 'center' });
    doc.font(font).fontSize(10).fillColor(MUTED).text(branding.contactLine, { width: CONTENT_WIDTH, align: 'center' });
  } else if (branded) {
    doc
      .font('bold')
      .fontSize(10)
      .fillColor(TEXT)
      .text(`Prepared by ${branding.displayName}`, MARGIN.left, 700, { width: CONTENT_WIDTH, align: 'center' });
  }
}

/** A 270° gauge: grey track, coloured arc for the score, score and grade in the middle. */
function drawScoreDial(doc: PDFKit.PDFDocument, cx: number, cy: number, r: number, score: number, grade: string): void {
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
  doc
    .path(arc(start, start + sweep))
    .strokeColor(RULE)
    .stroke();
  if (score > 0)
    doc
      .path(arc(start, start + (sweep * Math.min(100, score)) / 100))
      .strokeColor(scoreColor(score))
      .stroke();
  doc.restore();
  doc
    .font('bold')
    .fontSize(54)
    .fillColor(TEXT)
    .text(String(score), cx - r, cy - 42, { width: 2 * r, align: 'center' });
  doc
    .font('body')
    .fontSize(11)
    .fillColor(MUTED)
    .text('out of 100', cx - r, cy + 18, { width: 2 * r, align: 'center' });
  doc
    .font('bold')
    .fontSize(16)
    .fillColor(scoreColor(score))
    .text(`Grade ${grade}`, cx - r, cy + r - 10, { width: 2 * r, align: 'center' });
  doc.fillColor(TEXT);
}
