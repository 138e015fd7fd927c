import { parseViewport, viewportMeta } from './a11y-page';
import { headerEvidence } from './evidence';
import { attr, metaHttpEquiv, snippet, truncate, type ParsedPage } from './parse';
import { headerValue } from './snapshot';
import { EVIDENCE_MAX, PAGE_PASS, pageAnalyzer, pageFail, pageIssues, type Analyzer, type Issue } from './types';

/** Document-level best practices (Lighthouse doctype, charset, viewport). */

// ── BP_VIEWPORT_MISSING ──────────────────────────────────────────────────────────────────────────

export const viewportMissing = pageAnalyzer('BP_VIEWPORT_MISSING', (p) => {
  if (!p.isHtml) return null;
  const meta = viewportMeta(p);
  if (!meta)
    return pageFail('The page has no <meta name="viewport"> tag.', '(no <meta name="viewport"> element)', 'missing');
  const vp = parseViewport(attr(meta, 'content') ?? '');
  // Lighthouse: the tag only works with a width or an initial-scale.
  if (!vp.has('width') && !vp.has('initial-scale')) {
    return pageFail(
      'The viewport tag sets neither width nor initial-scale, so it has no effect.',
      snippet(p, meta),
      'no width',
    );
  }
  return PAGE_PASS;
});

// ── BP_DOCTYPE_CHARSET ───────────────────────────────────────────────────────────────────────────

/** HTML §13.2.3.2: the encoding declaration must be within the first 1024 bytes. */
export const CHARSET_PREFIX_BYTES = 1024;

function doctypeIssue(p: ParsedPage): Issue | null {
  if (p.doctype === null) {
    return {
      outcome: 'fail',
      message: 'The page does not start with a doctype, so browsers render it in quirks mode.',
      evidence: truncate(`starts with: ${p.source.trimStart().slice(0, 80)}`, EVIDENCE_MAX),
      subject: 'doctype missing',
    };
  }
  const rest = p.doctype.replace(/^!doctype/i, '').trim();
  const name = rest.split(/\s+/)[0]?.toLowerCase() ?? '';
  const evidence = truncate(`<${p.doctype}>`, EVIDENCE_MAX);
  if (name !== 'html')
    return {
      outcome: 'fail',
      message: 'The doctype does not name html, so browsers render the page in quirks mode.',
      evidence,
      subject: 'doctype not html',
    };
  if (rest.length > name.length)
    return {
      outcome: 'warn',
      message: 'The page uses a legacy doctype with a public or system identifier.',
      evidence,
      subject: 'doctype legacy',
    };
  return null;
}

/** Byte offset of a character offset, computed only when it can matter (UTF-8 ≥ 1 byte per char). */
function byteOffset(source: string, index: number): number {
  return index >= CHARSET_PREFIX_BYTES ? index : Buffer.byteLength(source.slice(0, index), 'utf8');
}

function charsetIssue(p: ParsedPage): Issue | null {
  if (/;\s*charset\s*=\s*"?[\w.:-]+/i.test(headerValue(p.page.headers, 'content-type') ?? '')) return null;
  if (p.page.body?.charCodeAt(0) === 0xfeff) return null; // a byte-order mark declares the encoding
  const declarations = [
    ...p.elements('meta').filter((m) => attr(m, 'charset') !== undefined),
    ...metaHttpEquiv(p, 'content-type').filter((m) => /charset\s*=/i.test(attr(m, 'content') ?? '')),
  ];
  const first = declarations.sort((a, b) => (a.startIndex ?? 0) - (b.startIndex ?? 0))[0];
  if (!first) {
    return {
      outcome: 'fail',
      message: 'No character encoding is declared (no <meta charset>, no charset in Content-Type).',
      evidence: headerEvidence(p.page.headers, 'content-type'),
      subject: 'charset missing',
    };
  }
  const offset = byteOffset(p.source, first.startIndex ?? 0);
  if (offset >= CHARSET_PREFIX_BYTES) {
    return {
      outcome: 'fail',
      message: `The character encoding is declared at byte ${offset}, after the first ${CHARSET_PREFIX_BYTES} bytes where browsers look for it.`,
      evidence: snippet(p, first),
      subject: 'charset late',
    };
  }
  return null;
}

export const doctypeCharset = pageAnalyzer('BP_DOCTYPE_CHARSET', (p) => {
  if (!p.isHtml) return null;
  const issues = [doctypeIssue(p), charsetIssue(p)].filter((i): i is Issue => i !== null);
  return pageIssues(issues);
});

export const BEST_PRACTICE_ANALYZERS: readonly Analyzer[] = [doctypeCharset, viewportMissing];
