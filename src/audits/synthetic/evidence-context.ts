import { isTag } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { elementSubject, resourceSubject } from '../../analyzers/subject';
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

/**
 * A synthetic finding's subject, by the real analyzers' function (docs/decisions.md, Fingerprints):
 * the identity of the element its markup evidence shows, so synthetic and real findings name
 * subjects alike.
 */
export function markupSubject(html: string, domain: string): string {
  const el = parseDocument(html).children.find(isTag);
  return el ? elementSubject(el, `${domain}/`) : '';
}

export { resourceSubject };
