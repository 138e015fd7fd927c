import { parsePages } from '../../src/analyzers/parse';
import type { CrawlSnapshot, SnapshotPage } from '../../src/analyzers/snapshot';
import type { Analyzer, AnalyzerOutcome } from '../../src/analyzers/types';

/** Runs one analyzer on pages of `origin`, as the engine does (robots.txt a 404, the pages parsed once). */
export function runAnalyzerOn(analyzer: Analyzer, origin: string, pages: SnapshotPage[]): AnalyzerOutcome {
  const snapshot: CrawlSnapshot = {
    origin,
    robots: { kind: 'fetched', url: `${origin}/robots.txt`, status: 404, body: '' },
    pages,
  };
  return analyzer.run(snapshot, parsePages(snapshot.pages));
}
