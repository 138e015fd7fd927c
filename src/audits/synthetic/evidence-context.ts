import type { AnalyzerCode } from '../../analyzers/catalog';
import type { FindingDraft } from '../../analyzers/types';
import type { Rng } from './rng';
import type { Site } from './site';

/** What a synthetic check's evidence is drawn from. */
export interface EvidenceContext {
  domain: string;
  site: Site;
  status: 'warn' | 'fail';
  rng: Rng;
  /** Pages the finding cites (already chosen). */
  urls: string[];
  /** Affects every crawled page. */
  sitewide: boolean;
}

type Draft = Omit<FindingDraft, 'urls'> & { urls?: string[] };
export type EvidenceFn = (ctx: EvidenceContext) => Draft[];

/** Appended to a message when the finding applies to every crawled page. */
export const everywhere = (ctx: EvidenceContext) => (ctx.sitewide ? ' This applies to every crawled page.' : '');

/** Part of the catalog's evidence (one category's file); evidence.ts checks that every code has one. */
export type EvidenceByCode = Partial<Record<AnalyzerCode, EvidenceFn>>;
