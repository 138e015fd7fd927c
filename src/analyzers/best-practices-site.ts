import { STATUS_CODES } from 'node:http';
import { parseDocument } from 'htmlparser2';
import { isTag, isText, type ChildNode } from 'domhandler';
import { truncate } from './parse';
import { EVIDENCE_MAX, notApplicable, siteAnalyzer, siteOutcome, type Analyzer } from './types';

/** Site-level best practices (BP_SOFT_404). */

/** A 404 page with less visible text than this is "nearly empty": it gives lost visitors nothing. */
export const SOFT_404_MIN_TEXT_BYTES = 512;

/** Visible text of an HTML (or plain-text) body: script, style and template contents left out, whitespace collapsed. */
export function visibleText(body: string): string {
  if (!/^\s*</.test(body.slice(0, 512))) return body.replace(/\s+/g, ' ').trim();
  const doc = parseDocument(body.slice(0, 1024 * 1024), { decodeEntities: true });
  let out = '';
  const stack: ChildNode[] = [...doc.children].reverse();
  while (stack.length > 0 && out.length < 64 * 1024) {
    const node = stack.pop()!;
    if (isText(node)) out += ` ${node.data}`;
    else if (isTag(node) && !/^(script|style|template|noscript|head)$/.test(node.name)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return out.replace(/\s+/g, ' ').trim();
}

/**
 * The crawler requests a path that cannot exist. A 2xx answer (directly or after redirects, e.g. to
 * the home page) fails; a 4xx whose page has under 512 bytes of visible text warns; a 5xx warns
 * (an error, but not "not found"); a 404/410 with a real error page passes.
 */
export const soft404 = siteAnalyzer('BP_SOFT_404', (snapshot) => {
  const probe = snapshot.notFoundProbe;
  if (!probe || probe.kind === 'unreachable') return notApplicable();
  const reason = STATUS_CODES[probe.status] ?? '';
  const redirected = probe.finalUrl !== probe.url;
  const where = redirected ? ` after redirecting to ${probe.finalUrl}` : '';
  const evidence = truncate(`GET ${probe.url} → HTTP ${probe.status} ${reason}${where}`.trim(), EVIDENCE_MAX);
  const urls = [probe.url];
  if (probe.status >= 200 && probe.status < 300) {
    return siteOutcome('fail', [
      { message: `A URL that does not exist answers HTTP ${probe.status}${where} instead of 404.`, evidence, urls },
    ]);
  }
  if (probe.status >= 500) {
    return siteOutcome('warn', [
      {
        message: `A URL that does not exist answers a server error (HTTP ${probe.status}) instead of 404.`,
        evidence,
        urls,
      },
    ]);
  }
  if (probe.status >= 400) {
    if (probe.body === null) return siteOutcome('pass'); // the body was not kept: only the status can be judged
    const text = visibleText(probe.body);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes < SOFT_404_MIN_TEXT_BYTES) {
      return siteOutcome('warn', [
        {
          message: `The error page for a missing URL is nearly empty (${bytes} bytes of text), so it gives lost visitors no way on.`,
          evidence: truncate(`${evidence}; text: "${truncate(text, 120)}"`, EVIDENCE_MAX),
          urls,
        },
      ]);
    }
    return siteOutcome('pass');
  }
  // 1xx/3xx as a final status: the crawler stopped in a redirect loop or similar.
  return siteOutcome('warn', [
    { message: `A URL that does not exist answers HTTP ${probe.status} instead of 404.`, evidence, urls },
  ]);
});

export const BEST_PRACTICE_SITE_ANALYZERS: readonly Analyzer[] = [soft404];
