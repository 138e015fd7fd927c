import type { Finding } from '../../schemas/audit';
import { FindingText } from './finding-list';
import { CATEGORY_LABELS, SEVERITY_LABELS } from './audits-labels';
import { ProblemNotice } from './audits-notices';
import { SeverityMark } from './audit-visuals';

/** A URL of the finding at its place in the finding's list (0 first). */
export interface FindingUrlRow {
  position: number;
  url: string;
  depth: number | null;
  referrers: number | null;
}

export interface FindingUrlsProps {
  auditBase: string;
  finding: Finding;
  /** How many URLs the finding names in all. */
  count: number;
  rows: FindingUrlRow[];
  nextCursor: string | null;
  later: boolean;
  problem?: string;
}

/** `/audits/{id}/findings/{finding_id}`: one finding and all its URLs, a page at a time (audit_finding_urls). */
export function FindingUrlsPage(props: FindingUrlsProps) {
  const { finding, rows } = props;
  const self = `${props.auditBase}/findings/${finding.id}`;
  const first = rows[0];
  const last = rows[rows.length - 1];
  return (
    <>
      <p>
        <a href={`${props.auditBase}#${finding.id}`}>Back to the audit</a>
      </p>
      {props.problem ? <ProblemNotice message={props.problem} /> : null}
      <p>
        <SeverityMark severity={finding.severity} /> {SEVERITY_LABELS[finding.severity]} ·{' '}
        {CATEGORY_LABELS[finding.category]} · check <code>{finding.analyzer}</code>
      </p>
      <FindingText finding={finding} />
      {first && last ? (
        <div class="table-wrap">
          <table>
            <caption>
              URLs {first.position + 1}–{last.position + 1} of {props.count}
            </caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Depth</th>
                <th scope="col">Linked from</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr>
                  <th scope="row" class="url">
                    <code>{row.url}</code>
                  </th>
                  <td>{row.depth ?? '—'}</td>
                  <td>{row.referrers === null ? '—' : `${row.referrers} ${row.referrers === 1 ? 'page' : 'pages'}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>This finding names no URL: it is about the site as a whole.</p>
      )}
      <p class="pager">
        {props.later ? <a href={self}>First page</a> : null}
        {props.nextCursor ? <a href={`${self}?${new URLSearchParams({ cursor: props.nextCursor })}`}>Next</a> : null}
      </p>
    </>
  );
}
