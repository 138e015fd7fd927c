import { findCatalogEntry } from '../../analyzers/catalog';
import type { Db } from '../../db/knex';
import { hasIdShape } from '../../ids';
import { changedFindings } from '../../monitoring/changes';
import { compareAudits, findingChanges, type Triage } from '../../monitoring/comparison';
import {
  siteAuditChoices,
  siteAuditPointsById,
  type SiteAuditChoice,
  type SiteAuditPoint,
  type SiteKey,
} from '../../monitoring/site-history';
import { CATEGORIES, type Category } from '../../schemas/audit';
import { CATEGORY_LABELS, shortTime } from './audits-labels';
import { ProblemNotice } from './audits-notices';

/** A finding of a comparison as the page names it, with its triage when it is not open. */
export interface NamedFinding {
  fingerprint: string;
  title: string;
  severity: string;
  triage?: string;
}

export interface ComparisonView {
  earlier: { auditId: string; completedAt: string };
  later: { auditId: string; completedAt: string };
  /** Whether these are the site's two latest audits (the page's default). */
  latest: boolean;
  scoreDelta: number;
  categories: Partial<Record<Category, number>>;
  added: NamedFinding[];
  fixed: NamedFinding[];
  unchanged: NamedFinding[];
  /** New since the earlier audit, but ignored or accepted: never counted as new. */
  known: NamedFinding[];
}

export interface SiteComparison {
  choices: Array<{ auditId: string; completedAt: string; score: number }>;
  view: ComparisonView | null;
  problem?: string;
}

export function named(
  f: { fingerprint: string; analyzer: string | null; severity: string | null },
  triage?: ReadonlyMap<string, Triage>,
): NamedFinding {
  const entry = f.analyzer ? findCatalogEntry(f.analyzer) : undefined;
  const status = triage?.get(f.fingerprint)?.status;
  return {
    fingerprint: f.fingerprint,
    title: entry?.title ?? f.fingerprint,
    severity: f.severity ?? '—',
    ...(status && status !== 'open' ? { triage: status } : {}),
  };
}

/**
 * Any two completed audits of the site compared, as the audit's own `comparison` is made (one
 * implementation: src/monitoring/comparison.ts, today's triage): the later against the earlier,
 * whichever order they were chosen in. Without a choice, the latest against the one before.
 */
export async function loadComparison(
  db: Db,
  site: SiteKey,
  query: Record<string, unknown>,
  triage: ReadonlyMap<string, Triage>,
  /** The site's latest audits with their bases, newest first, as the page has already read them. */
  known: readonly SiteAuditPoint[],
): Promise<SiteComparison> {
  const choices = await siteAuditChoices(db, site);
  const pointsById = async (ids: string[]) => {
    const held = known.filter((p) => ids.includes(p.auditId));
    return held.length === ids.length ? held : siteAuditPointsById(db, site, ids);
  };
  const latest = choices.slice(0, 2).map((c) => c.auditId);
  const from = typeof query.from === 'string' ? query.from : undefined;
  const to = typeof query.to === 'string' ? query.to : undefined;
  const chosen = from !== undefined || to !== undefined;
  const fits = !!from && !!to && from !== to && hasIdShape('audit', from) && hasIdShape('audit', to);
  let points = fits ? await pointsById([from, to]) : [];
  let problem: string | undefined;
  if (chosen && points.length < 2) problem = 'Choose two different audits of this site to compare.';
  // A choice that is not two audits of this site: the latest two, with the problem said.
  if (points.length < 2 && latest.length === 2) points = await pointsById(latest);
  const [later, earlier] = points;
  if (later && earlier && !(later.basis && earlier.basis))
    problem = 'One of these audits was stored before comparisons were kept: choose a later one.';
  const view = later?.basis && earlier?.basis ? comparisonView(later, earlier, choices, triage) : null;
  return { choices: choices.map(shown), view, problem };
}

function comparisonView(
  later: SiteAuditPoint,
  earlier: SiteAuditPoint,
  choices: SiteAuditChoice[],
  triage: ReadonlyMap<string, Triage>,
): ComparisonView {
  const comparison = compareAudits(later.basis!, earlier.basis!, triage);
  const changes = findingChanges(later.basis!, earlier.basis!, triage);
  const now = (fps: string[]) => changedFindings(fps, later.basis!.findings).map((f) => named(f, triage));
  return {
    earlier: { auditId: earlier.auditId, completedAt: new Date(earlier.completedAt).toISOString() },
    later: { auditId: later.auditId, completedAt: new Date(later.completedAt).toISOString() },
    latest: choices[0]?.auditId === later.auditId && choices[1]?.auditId === earlier.auditId,
    scoreDelta: comparison.score_delta,
    categories: comparison.categories,
    added: now(changes.new),
    fixed: changedFindings(changes.fixed, earlier.basis!.findings).map((f) => named(f, triage)),
    unchanged: now(changes.unchanged),
    known: now(changes.known),
  };
}

function shown(choice: SiteAuditChoice) {
  return { auditId: choice.auditId, completedAt: new Date(choice.completedAt).toISOString(), score: choice.score };
}

/** The comparison form and what it found, in the section the page's latest changes always had. */
export function ComparisonSection(props: { comparison: SiteComparison; siteBase: string }) {
  const { view, choices, problem } = props.comparison;
  return (
    <section aria-labelledby="changes-heading">
      <h2 id="changes-heading">{view && !view.latest ? 'Changes between two audits' : 'Latest changes'}</h2>
      {problem ? <ProblemNotice message={problem} /> : null}
      {choices.length >= 2 ? (
        <CompareForm choices={choices} view={view} action={`${props.siteBase}#changes-heading`} />
      ) : null}
      {view === null ? (
        <p>Changes show once the site has two audits.</p>
      ) : (
        <ComparisonResult view={view} findingHref={(fp) => `${props.siteBase}/findings/${fp}`} />
      )}
    </section>
  );
}

function CompareForm(props: { choices: SiteComparison['choices']; view: ComparisonView | null; action: string }) {
  const select = (id: string, name: string, label: string, selected: string | undefined) => (
    <div>
      <label for={id}>{label}</label>
      <select id={id} name={name}>
        {props.choices.map((c) => (
          <option value={c.auditId} selected={c.auditId === selected}>
            {shortTime(c.completedAt)} · score {c.score}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form method="get" action={props.action} class="filters compare">
      {select('compare-from', 'from', 'Earlier audit', props.view?.earlier.auditId)}
      {select('compare-to', 'to', 'Later audit', props.view?.later.auditId)}
      <button type="submit">Compare</button>
    </form>
  );
}

const signed = (delta: number) => (delta >= 0 ? `+${delta}` : `−${Math.abs(delta)}`);

function ComparisonResult(props: { view: ComparisonView; findingHref: (fp: string) => string }) {
  const { view } = props;
  const list = (items: NamedFinding[]) =>
    items.length === 0 ? (
      <p>None.</p>
    ) : (
      <ul>
        {items.map((f) => (
          <li>
            <a href={props.findingHref(f.fingerprint)}>{f.title}</a> ({f.severity}
            {f.triage ? `, ${f.triage}` : ''})
          </li>
        ))}
      </ul>
    );
  const categories = CATEGORIES.filter((c) => (view.categories[c] ?? 0) !== 0);
  return (
    <>
      <p>
        Score {signed(view.scoreDelta)}{' '}
        {view.latest ? (
          'since the audit before.'
        ) : (
          <>
            from the audit of <time dateTime={view.earlier.completedAt}>{shortTime(view.earlier.completedAt)}</time> to
            that of <time dateTime={view.later.completedAt}>{shortTime(view.later.completedAt)}</time>.
          </>
        )}
      </p>
      <p>
        {categories.length
          ? `By category: ${categories.map((c) => `${CATEGORY_LABELS[c]} ${signed(view.categories[c]!)}`).join(' · ')}; the others unchanged.`
          : 'No category score changed.'}
      </p>
      <h3>New issues ({view.added.length})</h3>
      {list(view.added)}
      <h3>Fixed issues ({view.fixed.length})</h3>
      {list(view.fixed)}
      <h3>Unchanged issues ({view.unchanged.length})</h3>
      {view.unchanged.length > 10 ? (
        <details>
          <summary>Show all {view.unchanged.length}</summary>
          {list(view.unchanged)}
        </details>
      ) : (
        list(view.unchanged)
      )}
      {view.known.length ? (
        <>
          <h3>Known issues, ignored or accepted ({view.known.length})</h3>
          {list(view.known)}
        </>
      ) : null}
    </>
  );
}
