import PDFDocument from 'pdfkit';
import type { AuditJson } from '../../schemas/audit';
import { NEUTRAL_BRANDING, type Branding } from '../branding';
import type { FindingLike } from '../../monitoring/changes';
import { writeAppendix } from './appendix';
import { writeChanges } from './changes';
import { writeContents } from './contents';
import { writeCover } from './cover';
import { displayDomain } from './display-names';
import { writeFindings } from './findings';
import { registerReportFonts } from './fonts';
import { writeFooters } from './footers';
import { writeLabMetrics } from './lab-metrics';
import { writeSummary } from './summary';
import { MARGIN } from './theme';
import { ReportWriter } from './writer';

export { displayDomain } from './display-names';
export { topIssues } from './finding-order';
export { SAMPLE_NOTICE } from './labels';
export { checkLogoEmbeds } from './logo-check';

/**
 * The PDF audit report: cover, contents, summary, findings by category then severity, and an
 * appendix of every analyzer. White-label: with branding, the agency's name, logo and colour are
 * the only names in the document (text and metadata); without, a neutral look that names no product.
 * Fonts: see fonts.ts (a domain no installed font can show is printed in its punycode form).
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
  /** The REPORT_FALLBACK_FONT setting (fonts.ts): tried before the installed CJK fonts. */
  fallbackFont?: string;
  /** Findings of the audit `comparison.previous_audit_id` names, to name the fixed ones (changes.ts). */
  previousFindings?: readonly FindingLike[] | null;
}

/**
 * Renders the audit as a PDF. `branding` must already be validated (validateBranding); null gives
 * the neutral, unbranded report.
 */
export async function renderAuditReport(
  audit: AuditJson,
  branding: Branding | null,
  opts: RenderOptions = {},
): Promise<Buffer> {
  const generatedAt = opts.generatedAt ?? new Date();
  const doc = createDocument(audit, branding, generatedAt);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const hasFallbackFont = registerReportFonts(doc, opts.fallbackFont);

  try {
    const report = {
      audit,
      branding: branding ?? { ...NEUTRAL_BRANDING },
      branded: branding !== null,
      generatedAt,
      sample: opts.sample === true,
    };
    const w = new ReportWriter(doc, report, hasFallbackFont);
    writeCover(w);
    doc.addPage(); // contents, filled in once every section's page is known
    const contentsIndex = doc.bufferedPageRange().count - 1;
    writeSummary(w);
    writeLabMetrics(w);
    writeChanges(w, opts.previousFindings ?? null);
    writeFindings(w);
    writeAppendix(w);
    writeContents(w, contentsIndex);
    writeFooters(w);
  } catch (err) {
    doc.end();
    await done.catch(() => undefined);
    throw err;
  }
  doc.end();
  return done;
}

/** An A4 document with buffered pages (contents and footers are written last) and the report's metadata. */
function createDocument(audit: AuditJson, branding: Branding | null, generatedAt: Date): PDFKit.PDFDocument {
  const domain = displayDomain(audit.domain);
  const author = (branding ?? NEUTRAL_BRANDING).displayName;
  return new PDFDocument({
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
      Author: author,
      Subject: `Audit of ${domain.unicode}: score ${audit.score} (grade ${audit.grade})`,
      Creator: author,
      Producer: author,
      CreationDate: generatedAt,
      ModDate: generatedAt,
    },
  });
}
