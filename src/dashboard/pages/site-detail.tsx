import { When } from '../components';
import { CategoryCharts, ScoreChart, type CategoryPoint, type ChartPoint } from './site-chart';
import { ComparisonSection, type NamedFinding, type SiteComparison } from './site-compare';

export interface SiteHistoryRow extends NamedFinding {
  seenIn: number;
  current: boolean;
  triage: string;
}

export interface SkippedRun {
  scheduledAt: string;
  reason: string;
  message: string;
}

export interface SiteDetailProps {
  basePath: string;
  site: { site_id: string; domain: string; schedule: string; paused: boolean };
  /** Oldest first. */
  points: ChartPoint[];
  /** The same audits' scores per category, oldest first. */
  categoryPoints: CategoryPoint[];
  /** Two audits compared: the latest two unless the form chose others. */
  comparison: SiteComparison;
  skipped: SkippedRun[];
  findings: SiteHistoryRow[];
}

/**
 * `/sites/{id}`: the score over time (overall and per category), the changes between two audits
 * (the latest two unless chosen), skipped runs, and every finding's history.
 */
export function SiteDetailPage(props: SiteDetailProps) {
  const { site, basePath } = props;
  const siteBase = `${basePath}/sites/${site.site_id}`;
  return (
    <>
      <p>
        <a href={`${basePath}/sites`}>All sites</a> · Audited {site.schedule}
        {site.paused ? ' (paused)' : ''}.
      </p>
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Score over time</h2>
        <ScoreChart points={props.points} auditHref={(id) => `${basePath}/audits/${id}`} />
        <h3>By category</h3>
        <CategoryCharts points={props.categoryPoints} />
      </section>
      <ComparisonSection comparison={props.comparison} siteBase={siteBase} />
      <section aria-labelledby="skipped-heading">
        <h2 id="skipped-heading">Skipped runs</h2>
        {props.skipped.length === 0 ? (
          <p>No scheduled run was skipped.</p>
        ) : (
          <ul>
            {props.skipped.map((r) => (
              <li>
                <When at={r.scheduledAt} />: <code>{r.reason}</code> — {r.message}
              </li>
            ))}
          </ul>
        )}
      </section>
      <FindingHistory rows={props.findings} audits={props.points.length} siteBase={siteBase} />
    </>
  );
}

function FindingHistory(props: { rows: SiteHistoryRow[]; audits: number; siteBase: string }) {
  return (
    <section aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings over time</h2>
      {props.rows.length === 0 ? (
        <p>No finding yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption>Every finding of the last {props.audits} audits, current ones first</caption>
            <thead>
              <tr>
                <th scope="col">Finding</th>
                <th scope="col">Severity</th>
                <th scope="col">Seen in</th>
                <th scope="col">Now</th>
                <th scope="col">Triage</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.map((r) => (
                <tr>
                  <th scope="row">
                    <a href={`${props.siteBase}/findings/${r.fingerprint}`}>{r.title}</a>{' '}
                    <code class="hint">{r.fingerprint}</code>
                  </th>
                  <td>{r.severity}</td>
                  <td>
                    {r.seenIn} of {props.audits}
                  </td>
                  <td>{r.current ? 'Found' : 'Fixed'}</td>
                  <td>{r.triage}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
