import { DomainField } from '../components';
import { AUDIT_STATUSES_SHOWN, shortTime, statusLabel } from './audits-labels';
import { ProblemNotice } from './audits-notices';

export interface AuditListItem {
  audit_id: string;
  domain: string;
  status: string;
  score: number | null;
  completed_at: string | null;
  created_at: string;
}

/** The list's filters as the form shows them: days as YYYY-MM-DD. */
export interface AuditFilters {
  status?: string;
  completed_after?: string;
  completed_before?: string;
}

export interface AuditsPageProps {
  /** '' for live data, '/test' for test data: every link and form stays in the same mode. */
  basePath: string;
  csrfToken: string;
  /** Viewers read; developers and owners may run audits. */
  canRun: boolean;
  /** Depths this account may run, shallowest first; the last is its own tier. */
  tiers: readonly string[];
  audits: AuditListItem[];
  filters: AuditFilters;
  nextCursor: string | null;
  problem?: { message: string; requestId?: string };
  /** The domain typed before a refused run, shown again. */
  domain?: string;
}

/** The audits of this workspace and mode: run one, filter the list, page through it. */
export function AuditsPage(props: AuditsPageProps) {
  const base = `${props.basePath}/audits`;
  return (
    <>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.canRun ? <RunAuditForm {...props} action={base} /> : null}
      <AuditFilterForm action={base} filters={props.filters} />
      <AuditTable basePath={props.basePath} audits={props.audits} />
      {props.nextCursor ? (
        <p>
          <a href={`${base}?${new URLSearchParams({ ...definedOnly(props.filters), cursor: props.nextCursor })}`}>
            Older audits
          </a>
        </p>
      ) : null}
    </>
  );
}

function RunAuditForm(props: AuditsPageProps & { action: string }) {
  const ownTier = props.tiers[props.tiers.length - 1];
  return (
    <form method="post" action={props.action} class="card">
      <h2>Run an audit</h2>
      <input type="hidden" name="_csrf" value={props.csrfToken} />
      <DomainField id="audit-domain" value={props.domain} />
      <label for="audit-tier">Depth</label>
      <select id="audit-tier" name="tier">
        {props.tiers.map((tier) => (
          <option value={tier} selected={tier === ownTier}>
            {tier}
          </option>
        ))}
      </select>
      <button type="submit">Run audit</button>
    </form>
  );
}

function AuditFilterForm(props: { action: string; filters: AuditFilters }) {
  return (
    <form method="get" action={props.action} class="filters">
      <label for="filter-status">Status</label>
      <select id="filter-status" name="status">
        <option value="">Any</option>
        {AUDIT_STATUSES_SHOWN.map((status) => (
          <option value={status} selected={props.filters.status === status}>
            {statusLabel(status)}
          </option>
        ))}
      </select>
      <DateFilter id="filter-after" name="completed_after" label="Completed after" filters={props.filters} />
      <DateFilter id="filter-before" name="completed_before" label="Completed before" filters={props.filters} />
      <button type="submit">Filter</button>
    </form>
  );
}

/** A date filter bounded to the years the API accepts (0001–9999), so the browser refuses the rest first. */
function DateFilter(props: {
  id: string;
  name: 'completed_after' | 'completed_before';
  label: string;
  filters: AuditFilters;
}) {
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type="date"
        min="0001-01-01"
        max="9999-12-31"
        value={props.filters[props.name] ?? ''}
      />
    </>
  );
}

function AuditTable(props: { basePath: string; audits: AuditListItem[] }) {
  if (props.audits.length === 0) return <p>No audits match.</p>;
  return (
    <table>
      <caption>Audits, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Domain</th>
          <th scope="col">Status</th>
          <th scope="col">Score</th>
          <th scope="col">Started</th>
          <th scope="col">Completed</th>
        </tr>
      </thead>
      <tbody>
        {props.audits.map((audit) => (
          <tr>
            <th scope="row">
              <a href={`${props.basePath}/audits/${audit.audit_id}`}>{audit.domain}</a>
            </th>
            <td>{statusLabel(audit.status)}</td>
            <td>{audit.score ?? '—'}</td>
            <td>
              <time dateTime={audit.created_at}>{shortTime(audit.created_at)}</time>
            </td>
            <td>
              {audit.completed_at ? <time dateTime={audit.completed_at}>{shortTime(audit.completed_at)}</time> : '—'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function definedOnly(filters: AuditFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => typeof v === 'string' && v !== '')) as Record<
    string,
    string
  >;
}
