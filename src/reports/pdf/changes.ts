import { ANALYZER_CODES, findCatalogEntry } from '../../analyzers/catalog';
import { changedFindings, siteLevelAnalyzer, type ChangedFinding, type FindingLike } from '../../monitoring/changes';
import { CATEGORIES, type Comparison } from '../../schemas/audit';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './labels';
import { CONTENT_WIDTH, MARGIN, MUTED, SEVERITY_COLORS, TEXT } from './theme';
import type { ReportWriter } from './writer';

/** Findings listed per kind of change at most; the rest are counted. */
const MAX_LISTED = 25;
const UP = '#15803d';
const DOWN = '#b91c1c';

/**
 * "Changes since the previous audit" (docs/decisions.md, Monitoring → Comparison): score and category
 * deltas, new and fixed findings named by their catalog titles. `previousFindings` names the fixed
 * ones; without it (the previous audit was pruned) a site-level fingerprint is still named from the
 * catalog. Written only when the audit carries a comparison.
 */
export function writeChanges(w: ReportWriter, previousFindings: readonly FindingLike[] | null): void {
  const comparison = w.report.audit.comparison;
  if (!comparison) return;
  w.heading('Changes since the previous audit', 0, { newPage: true });
  const doc = w.doc;
  const prev = comparison.previous_score;
  const verb = comparison.score_delta > 0 ? 'rose' : comparison.score_delta < 0 ? 'fell' : 'stayed';
  const by = comparison.score_delta === 0 ? `at ${prev}` : `by ${Math.abs(comparison.score_delta)} points`;
  doc
    .font('body')
    .fontSize(10.5)
    .fillColor(TEXT)
    .text(
      `Since the previous audit (${comparison.previous_audit_id}), the score ${verb} ${by}, from ${prev} to ${w.report.audit.score}. ` +
        `${count(comparison.new.length, 'new issue')}, ${count(comparison.fixed.length, 'fixed issue')}, ${count(comparison.unchanged, 'issue')} found both times.`,
      MARGIN.left,
      doc.y,
      { width: CONTENT_WIDTH },
    );
  doc.moveDown(1);
  writeCategoryDeltas(w, comparison);
  writeList(w, 'New issues', changedFindings(comparison.new, w.report.audit.findings), 'None: no issue appeared.');
  writeList(w, 'Fixed issues', changedFindings(comparison.fixed, previousFindings ?? []), 'None: no issue went away.');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : n < 0 ? `−${Math.abs(n)}` : '±0';
}

function writeCategoryDeltas(w: ReportWriter, comparison: Comparison): void {
  const doc = w.doc;
  w.heading('Score by category', null);
  const rows = CATEGORIES.filter((c) => comparison.categories[c] !== undefined);
  for (const [label, delta] of [
    ['Overall score', comparison.score_delta] as const,
    ...rows.map((c) => [CATEGORY_LABELS[c], comparison.categories[c]!] as const),
  ]) {
    w.ensure(18);
    const y = doc.y;
    doc.font('body').fontSize(10).fillColor(TEXT).text(label, MARGIN.left, y, { width: 220, lineBreak: false });
    doc
      .font('bold')
      .fillColor(delta > 0 ? UP : delta < 0 ? DOWN : MUTED)
      .text(signed(delta), MARGIN.left + 230, y, { width: 60, lineBreak: false });
    doc.x = MARGIN.left;
    doc.y = y + 16;
  }
  doc.fillColor(TEXT).moveDown(1);
}

function writeList(w: ReportWriter, title: string, items: ChangedFinding[], none: string): void {
  const doc = w.doc;
  w.heading(`${title} (${items.length})`, null);
  if (items.length === 0) doc.font('body').fontSize(10).fillColor(MUTED).text(none, MARGIN.left, doc.y);
  for (const item of items.slice(0, MAX_LISTED)) {
    w.ensure(18);
    const analyzer = item.analyzer ?? siteLevelAnalyzer(item.fingerprint, ANALYZER_CODES);
    const entry = analyzer ? findCatalogEntry(analyzer) : undefined;
    const severity = item.severity ?? entry?.severity ?? null;
    doc
      .font('body')
      .fontSize(10)
      .fillColor(TEXT)
      .text(`• ${entry?.title ?? 'An issue of the previous audit'} `, MARGIN.left, doc.y, {
        width: CONTENT_WIDTH,
        continued: true,
      })
      .fillColor(severity ? SEVERITY_COLORS[severity] : MUTED)
      .text(severity ? `(${SEVERITY_LABELS[severity]}${entry ? `, ${CATEGORY_LABELS[entry.category]}` : ''})` : '', {
        continued: true,
      })
      .fillColor(MUTED)
      .font('mono')
      .fontSize(8)
      .text(`  ${item.fingerprint}`);
    doc.moveDown(0.3);
  }
  if (items.length > MAX_LISTED)
    doc
      .font('body')
      .fontSize(10)
      .fillColor(MUTED)
      .text(`and ${items.length - MAX_LISTED} more.`, MARGIN.left, doc.y);
  doc.fillColor(TEXT).moveDown(1);
}
