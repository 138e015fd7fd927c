import { findCatalogEntry } from '../../analyzers/catalog';
import { CATEGORIES, SEVERITIES, type Category, type Finding } from '../../schemas/audit';
import { displayUrl } from './display-names';
import { compareFindings } from './finding-order';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './labels';
import { CONTENT_WIDTH, MARGIN, MUTED, SEVERITY_COLORS, TEXT } from './theme';
import type { ReportWriter } from './writer';

/** A finding names at most this many pages in the report; the rest are counted. */
const MAX_URLS_PER_FINDING = 8;

/** The findings section: a page per category, findings grouped by severity, most severe first. */
export function writeFindings(w: ReportWriter): void {
  const doc = w.doc;
  const { audit } = w.report;
  w.heading('Findings', 0, { newPage: true });
  doc
    .font('body')
    .fontSize(10)
    .fillColor(MUTED)
    .text('Every issue the audit found, grouped by category and ordered from most to least severe.', {
      width: CONTENT_WIDTH,
    });
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
    w.heading(`${CATEGORY_LABELS[cat]}${score === undefined ? '' : ` — score ${score}`}`, 1, { newPage: !first });
    first = false;
    for (const sev of SEVERITIES) {
      const group = list.filter((f) => f.severity === sev);
      if (group.length === 0) continue;
      w.ensure(90);
      doc
        .font('bold')
        .fontSize(11.5)
        .fillColor(SEVERITY_COLORS[sev])
        .text(`${SEVERITY_LABELS[sev]} (${group.length})`, MARGIN.left, doc.y, { width: CONTENT_WIDTH });
      doc.moveDown(0.3);
      for (const f of group) writeFinding(w, f);
    }
  }
}

/** One finding: title, what was found, where, evidence, why it matters, how to fix. */
function writeFinding(w: ReportWriter, f: Finding): void {
  const doc = w.doc;
  w.ensure(80);
  const y = doc.y;
  doc.rect(MARGIN.left, y + 2, 3, 10).fill(SEVERITY_COLORS[f.severity]);
  doc
    .font('bold')
    .fontSize(10.5)
    .fillColor(TEXT)
    .text(f.title, MARGIN.left + 10, y, { width: CONTENT_WIDTH - 10 });
  doc.moveDown(0.2);
  w.labelled('What we found:', f.message);
  if (f.urls.length > 0) writeWhere(w, f.urls);
  if (f.evidence) {
    w.ensure(24);
    doc
      .font('bold')
      .fontSize(9.5)
      .fillColor(TEXT)
      .text('Evidence:', MARGIN.left + 10, doc.y, { width: CONTENT_WIDTH - 10 });
    doc
      .font('mono')
      .fontSize(8)
      .fillColor('#374151')
      .text(f.evidence, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
    doc.fillColor(TEXT);
    doc.moveDown(0.25);
  }
  const entry = findCatalogEntry(f.analyzer);
  if (entry) w.labelled('Why it matters:', entry.why);
  w.labelled('How to fix:', f.recommendation);
  doc.x = MARGIN.left;
  doc.moveDown(0.6);
}

/** The affected pages, IDN hosts in Unicode where a font can show them. */
function writeWhere(w: ReportWriter, urls: readonly string[]): void {
  const doc = w.doc;
  const shown = urls.slice(0, MAX_URLS_PER_FINDING);
  const more = urls.length - shown.length;
  w.ensure(24);
  doc
    .font('bold')
    .fontSize(9.5)
    .fillColor(TEXT)
    .text('Where:', MARGIN.left + 10, doc.y, { width: CONTENT_WIDTH - 10 });
  doc.font('body').fontSize(8.5).fillColor(MUTED);
  for (const raw of shown) {
    const unicode = displayUrl(raw);
    const font = w.fontFor(unicode, 'body');
    const url = font ? unicode : raw;
    doc.font(font ?? 'body').text(`• ${url}`, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
  }
  if (more > 0) doc.font('body').text(`… and ${more} more`, MARGIN.left + 18, doc.y, { width: CONTENT_WIDTH - 18 });
  doc.fillColor(TEXT);
  doc.moveDown(0.25);
}
