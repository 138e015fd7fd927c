/** The printed agreement table, disagreements and performance ranking of a comparison run. */
import {
  disagreements,
  percent,
  precision,
  rankBy,
  recall,
  sameRanking,
  sumTallies,
  tallyByCheck,
  type Pair,
  type SiteScore,
  type Tally,
} from './agreement';
import { CHECKS } from './checks';

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const lpad = (s: string | number, n: number) => String(s).padStart(n);

function row(name: string, t: Tally): string {
  return [
    pad(name, 66),
    lpad(t.tp, 4),
    lpad(t.fp, 4),
    lpad(t.fn, 4),
    lpad(t.tn, 5),
    lpad(t.skipped, 5),
    lpad(percent(precision(t)), 9),
    lpad(percent(recall(t)), 9),
  ].join(' ');
}

/** Per-check rows (checks never compared are listed apart), then the totals. */
export function agreementTable(pairs: readonly Pair[]): string[] {
  const byCheck = tallyByCheck(pairs);
  const lines = [
    `${pad('check (Lighthouse ↔ ours)', 66)} ${lpad('TP', 4)} ${lpad('FP', 4)} ${lpad('FN', 4)} ${lpad('TN', 5)} ${lpad('n/a', 5)} ${lpad('precision', 9)} ${lpad('recall', 9)}`,
  ];
  const compared: Tally[] = [];
  const notCompared: string[] = [];
  for (const c of CHECKS) {
    const t = byCheck.get(c.id);
    if (!t || t.tp + t.fp + t.fn + t.tn === 0) {
      notCompared.push(`${c.id} ↔ ${c.ours.join('+')}`);
      continue;
    }
    compared.push(t);
    lines.push(row(`${c.id} ↔ ${c.ours.join('+')}`, t));
  }
  lines.push(row('TOTAL', sumTallies(compared)));
  const explained = pairs.filter((p) => p.difference !== undefined).length;
  if (explained > 0) {
    const rest = tallyByCheck(pairs.filter((p) => p.difference === undefined));
    const comparedIds = CHECKS.filter((c) => compared.includes(byCheck.get(c.id)!)).map((c) => c.id);
    const kept = comparedIds.map((id) => rest.get(id)).filter((t): t is Tally => t !== undefined);
    lines.push(row(`TOTAL without ${explained} documented difference(s)`, sumTallies(kept)));
  }
  if (notCompared.length > 0)
    lines.push(
      '',
      `not compared (no verdict on our side or none on Lighthouse's):`,
      ...notCompared.map((n) => `  ${n}`),
    );
  return lines;
}

/** One row per site: its compared checks summed (the same pairs as the per-check rows). */
export function siteTable(pairs: readonly Pair[]): string[] {
  const sites = [...new Set(pairs.map((p) => p.site))];
  const lines = [
    `${pad('site', 66)} ${lpad('TP', 4)} ${lpad('FP', 4)} ${lpad('FN', 4)} ${lpad('TN', 5)} ${lpad('n/a', 5)} ${lpad('precision', 9)} ${lpad('recall', 9)}`,
  ];
  for (const site of sites) {
    const mine = pairs.filter((p) => p.site === site);
    const pages = new Set(mine.map((p) => p.url)).size;
    lines.push(row(`${site} (${pages} pages)`, sumTallies([...tallyByCheck(mine).values()])));
  }
  return lines;
}

export function disagreementLines(pairs: readonly Pair[], origins: ReadonlyMap<string, string>): string[] {
  return disagreements(pairs).map((p) => {
    const origin = origins.get(p.site) ?? '';
    const path = origin && p.url.startsWith(origin) ? p.url.slice(origin.length) : p.url;
    const kind = p.ours === 'fail' ? 'FP (we fail, Lighthouse passes)' : 'FN (Lighthouse fails, we pass)';
    return `  ${p.check} ${p.site}${path}: ${kind}${p.difference ? ` — documented difference: ${p.difference}` : ''}`;
  });
}

/** `basis`: per site, what our performance score comes from (lab or diagnostics). */
export function rankingLines(scores: readonly SiteScore[], basis: ReadonlyMap<string, string>): string[] {
  const lines = [`${pad('site', 20)} ${lpad('Lighthouse', 11)} ${lpad('ours', 6)}  basis of ours`];
  for (const s of scores)
    lines.push(`${pad(s.site, 20)} ${lpad(s.lighthouse, 11)} ${lpad(s.ours, 6)}  ${basis.get(s.site) ?? ''}`);
  lines.push(
    `ranking by Lighthouse: ${rankBy(scores, 'lighthouse').join(' > ')}`,
    `ranking by ours:       ${rankBy(scores, 'ours').join(' > ')}`,
    `same ranking: ${sameRanking(scores) ? 'yes' : 'no'} (allowing sites within 5 Lighthouse points in either order: ${sameRanking(scores, 5) ? 'yes' : 'no'})`,
  );
  return lines;
}
