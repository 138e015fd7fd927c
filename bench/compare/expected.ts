/**
 * The expected agreement on the real sites (bench/compare/real-sites-expected.json): every compared
 * page's pair of verdicts per check, the per-check and per-site tallies, and each disagreement with
 * the class it was given by hand. `compare:lighthouse -- --real --pages 20 --write-expected` writes it (keeping
 * the classes already given); test/unit/compare-real-sites.test.ts fails when our side agrees with
 * Lighthouse less than it records. Pure.
 */
import { disagreements, precision, recall, sumTallies, tallyByCheck, type Pair, type Tally } from './agreement';
import type { Verdict } from './checks';

/** Why a disagreement remains (docs/analyzers.md, "Compared with Lighthouse"). */
export const CLASSES = {
  'ours-wrong': 'a defect of ours, not fixed yet (the note says why)',
  'ours-wrong-css': 'a defect of ours in the CSS reading (src/analyzers/page-css.ts, css-*.ts), reported to its owner',
  'rule-differs': "Lighthouse's rule differs from ours by design",
  'lighthouse-wrong': 'Lighthouse (or axe-core under it) misjudges the page',
  loopback: 'the content is served differently on loopback than in production',
  'run-variance': 'what the page does differs from one run to the next (timing)',
  unclassified: 'new: not looked at yet',
} as const;
export type DisagreementClass = keyof typeof CLASSES;

export interface ClassifiedDisagreement {
  site: string;
  path: string;
  check: string;
  /** FP: we fail, Lighthouse does not; FN: the reverse. */
  kind: 'FP' | 'FN';
  class: DisagreementClass;
  note: string;
}

export interface TallyJson extends Tally {
  precision: number | null;
  recall: number | null;
}

export interface ExpectedAgreement {
  about: string;
  /** Per site, the compared pages' paths in the order compared. */
  pages: Record<string, string[]>;
  checks: Record<string, TallyJson>;
  sites: Record<string, TallyJson>;
  total: TallyJson;
  /** `<site> <path>` → check → `<ours>/<lighthouse>`; pairs where neither side has a verdict are left out. */
  verdicts: Record<string, Record<string, string>>;
  disagreements: ClassifiedDisagreement[];
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 10_000) / 10_000);
const tallyJson = (t: Tally): TallyJson => ({ ...t, precision: round(precision(t)), recall: round(recall(t)) });

export const pathOf = (url: string, origin: string): string => url.slice(origin.length) || '/';

/** The expected file for these pairs; `previous` lends the classes of disagreements still there. */
export function buildExpected(
  pairs: readonly Pair[],
  origins: ReadonlyMap<string, string>,
  previous: ExpectedAgreement | null,
  about: string,
): ExpectedAgreement {
  const rel = (p: Pair) => pathOf(p.url, origins.get(p.site) ?? '');
  const pages: Record<string, string[]> = {};
  const verdicts: Record<string, Record<string, string>> = {};
  for (const p of pairs) {
    const list = (pages[p.site] ??= []);
    if (!list.includes(rel(p))) list.push(rel(p));
    if (p.ours === 'na' && p.lighthouse === 'na') continue;
    (verdicts[`${p.site} ${rel(p)}`] ??= {})[p.check] = `${p.ours}/${p.lighthouse}`;
  }
  const known = new Map((previous?.disagreements ?? []).map((d) => [disagreementKey(d), d]));
  const classified = disagreements(pairs).map((p): ClassifiedDisagreement => {
    const d = {
      site: p.site,
      path: rel(p),
      check: p.check,
      kind: p.ours === 'fail' ? ('FP' as const) : ('FN' as const),
    };
    const before = known.get(disagreementKey(d));
    return { ...d, class: before?.class ?? 'unclassified', note: before?.note ?? p.difference ?? '' };
  });
  const bySite = new Map<string, Pair[]>();
  for (const p of pairs) bySite.set(p.site, [...(bySite.get(p.site) ?? []), p]);
  const byCheck = tallyByCheck(pairs);
  return {
    about,
    pages,
    checks: Object.fromEntries([...byCheck].map(([id, t]) => [id, tallyJson(t)])),
    sites: Object.fromEntries([...bySite].map(([s, ps]) => [s, tallyJson(sumTallies([...tallyByCheck(ps).values()]))])),
    total: tallyJson(sumTallies([...byCheck.values()])),
    verdicts,
    disagreements: classified,
  };
}

function disagreementKey(d: Pick<ClassifiedDisagreement, 'site' | 'path' | 'check' | 'kind'>): string {
  return `${d.site} ${d.path} ${d.check} ${d.kind}`;
}

const disagrees = (ours: Verdict, lighthouse: Verdict) =>
  ours !== 'na' && (ours === 'fail' ? lighthouse !== 'fail' : lighthouse === 'fail');

export interface Drift {
  /** Pairs that agreed with Lighthouse (or were judged at all) and no longer do. */
  regressions: string[];
  /** Disagreements that are gone: the expected file is to be written again. */
  improvements: string[];
}

/**
 * Today's pairs against the expected ones, for the checks `compared` says: a pair that agreed and
 * now disagrees, or that we judged and now do not, is a regression; a disagreement now gone is an
 * improvement. A page the expected file lists that was not compared today is a regression too.
 */
export function driftFrom(
  expected: ExpectedAgreement,
  pairs: readonly Pair[],
  origins: ReadonlyMap<string, string>,
  compared: (check: string) => boolean,
): Drift {
  const now = new Map(pairs.map((p) => [`${p.site} ${pathOf(p.url, origins.get(p.site) ?? '')} ${p.check}`, p]));
  const regressions: string[] = [];
  const improvements: string[] = [];
  for (const [page, checks] of Object.entries(expected.verdicts)) {
    if (!origins.has(page.slice(0, page.indexOf(' ')))) continue;
    for (const [check, pair] of Object.entries(checks)) {
      if (!compared(check)) continue;
      const [ours, lighthouse] = pair.split('/') as [Verdict, Verdict];
      const today = now.get(`${page} ${check}`);
      if (!today) {
        regressions.push(`${page} ${check}: not compared any more`);
        continue;
      }
      const was = disagrees(ours, lighthouse);
      const is = disagrees(today.ours, today.lighthouse);
      if (is && !was) regressions.push(`${page} ${check}: we now say ${today.ours}, Lighthouse ${today.lighthouse}`);
      else if (ours !== 'na' && today.ours === 'na') regressions.push(`${page} ${check}: no verdict of ours any more`);
      else if (was && !is) improvements.push(`${page} ${check}: we now say ${today.ours}, as Lighthouse`);
    }
  }
  return { regressions, improvements };
}
