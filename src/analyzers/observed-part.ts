import v8 from 'node:v8';
import zlib from 'node:zlib';
import { summarizePage, type PageSummary } from './page-summary';
import { parsePage, type ParsedPage, type StylesheetTexts } from './parse';
import type { SnapshotPage } from './snapshot';
import type { Analyzer } from './types';

/**
 * One part of a crawl's pages, observed by every analyzer ahead of the analysis, on whichever worker
 * took it (docs/architecture.md, "Analysis in parts"). The analysis takes it in place of observing
 * those pages itself: the values are what AnalysisRun would have written to its scratch file.
 */
export interface ObservedPart {
  /** The analyzers' codes, in the order of `values`: a part observed by other code is observed again. */
  analyzers: readonly string[];
  /** Per page, 1 where it was parsed as an HTML document. */
  html: Uint8Array;
  /** Per analyzer: its values for the part's pages (null where it had thrown), packValues' bytes. */
  values: Uint8Array[];
  /** The pages' summaries, v8-serialized and deflated (the chunks PageSummaries keeps). */
  summaries: Uint8Array;
  /** Analyzers that threw on one of the part's pages: the analysis reports them as `error`. */
  failed: Array<{ code: string; message: string }>;
}

/**
 * Raised whenever an analyzer's observation changes shape or meaning, so that a part observed by the
 * code before (a deploy between the part and the analysis) is observed again, never finished by code
 * that reads it otherwise. 2: client-side redirects (SEO_SITEMAP_INVALID, SEO_ORPHAN_PAGE,
 * SEO_INTERNAL_REDIRECT_LINK observe them; SEO_BROKEN_LINK observes each page's references). 3: the
 * messages of PERF_RENDER_BLOCKING and PERF_IMG_UNSIZED name the script and the image. 4:
 * SEO_LINK_TEXT_GENERIC knows Tamil and Persian generic texts.
 */
const OBSERVATIONS_VERSION = 4;

/** What identifies the analyzers a part was observed with, and the version of their observations. */
export function analyzersKey(list: readonly Pick<Analyzer, 'code'>[]): string {
  return `${list.map((analyzer) => analyzer.code).join(',')};v${OBSERVATIONS_VERSION}`;
}

/**
 * Every analyzer's observation of one parsed page, handed to `push` in the list's order. An analyzer
 * that threw (`failed`) gets null from then on, so every analyzer's values stay aligned with the pages.
 */
export function observeEvery(
  list: readonly Analyzer[],
  parsed: ParsedPage,
  failed: boolean[],
  onFail: (i: number, error: unknown) => void,
  push: (i: number, value: unknown) => void,
): void {
  list.forEach((analyzer, i) => {
    let value: unknown = null;
    if (!failed[i])
      try {
        value = analyzer.observe(parsed);
      } catch (error) {
        onFail(i, error);
      }
    push(i, value);
  });
}

/**
 * An analyzer's values for some pages, v8-serialized and deflated (most repeat a check's message).
 * Each analyzer's apart: the analysis writes them to its scratch file as they are and inflates one
 * analyzer's at a time while it finishes, so taking a part makes no garbage the size of the part.
 */
export function packValues(values: readonly unknown[]): Buffer {
  return zlib.deflateRawSync(v8.serialize(values), { level: 1 });
}

export function unpackValues(bytes: Uint8Array): unknown[] {
  return v8.deserialize(zlib.inflateRawSync(bytes)) as unknown[];
}

/** Deflated summaries: the field names repeated in every summary are most of the bytes. */
export function packSummaries(summaries: readonly PageSummary[]): Buffer {
  return zlib.deflateRawSync(v8.serialize(summaries), { level: 1 });
}

export function unpackSummaries(bytes: Uint8Array): PageSummary[] {
  return v8.deserialize(zlib.inflateRawSync(bytes)) as PageSummary[];
}

/**
 * Observes a part's pages (with their bodies) one at a time, giving the event loop back every
 * `sliceMs` so the activity's heartbeats go out. Memory: one page's tree and the part's values.
 */
export async function observePart(
  pages: AsyncIterable<SnapshotPage>,
  stylesheets: StylesheetTexts,
  list: readonly Analyzer[],
  sliceMs = 50,
): Promise<ObservedPart & { pages: number }> {
  const values: unknown[][] = list.map(() => []);
  const failed = list.map(() => false);
  const errors: ObservedPart['failed'] = [];
  const onFail = (i: number, error: unknown) => {
    failed[i] = true;
    errors.push({ code: list[i]!.code, message: error instanceof Error ? error.message : String(error) });
  };
  const html: number[] = [];
  const summaries: PageSummary[] = [];
  let sliceStart = performance.now();
  for await (const page of pages) {
    const parsed = parsePage(page, stylesheets);
    html.push(parsed.isHtml ? 1 : 0);
    observeEvery(list, parsed, failed, onFail, (i, value) => values[i]!.push(value));
    summaries.push(summarizePage(parsed));
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  return {
    pages: html.length,
    analyzers: list.map((analyzer) => analyzer.code),
    html: Uint8Array.from(html),
    values: values.map(packValues),
    summaries: packSummaries(summaries),
    failed: errors,
  };
}

/** A part as stored: v8-serialized (its values and summaries are deflated already). */
export function encodePart(part: ObservedPart): Buffer {
  const { analyzers, html, values, summaries, failed } = part;
  return v8.serialize({ analyzers, html, values, summaries, failed });
}

/** The part; its byte arrays are views on `bytes`. */
export function decodePart(bytes: Uint8Array): ObservedPart {
  return v8.deserialize(bytes) as ObservedPart;
}
