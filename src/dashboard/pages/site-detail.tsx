import { When } from '../components';
import { ScoreChart, type ChartPoint } from './site-chart';

export interface NamedFinding {
  fingerprint: string;
  title: string;
  severity: string;
}

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
  changes: { scoreDelta: number; added: NamedFinding[]; fixed: NamedFinding[] } | null;
  skipped: SkippedRun[];
  findings: SiteHistoryRow[];
}

/** `/sites/{id}`: the score over time, what changed in the latest audit, skipped runs, and every finding's history. */
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
      </section>
      <LatestChanges changes={props.changes} findingHref={(fp) => `${siteBase}/findings/${fp}`} />
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

function LatestChanges(props: { changes: SiteDetailProps['changes']; findingHref: (fp: string) => string }) {
  const { changes } = props;
  const list = (items: NamedFinding[], none: string) =>
    items.length === 0 ? (
      <p>{none}</p>
    ) : (
      <ul>
        {items.map((f) => (
          <li>
            <a href={props.findingHref(f.fingerprint)}>{f.title}</a> ({f.severity})
          </li>
        ))}
      </ul>
    );
  return (
    <section aria-labelledby="changes-heading">
      <h2 id="changes-heading">Latest changes</h2>
      {changes === null ? (
        <p>Changes show once the site has two audits.</p>
      ) : (
        <>
          <p>
            Score {changes.scoreDelta >= 0 ? `+${changes.scoreDelta}` : `−${Math.abs(changes.scoreDelta)}`} since the
            audit before.
          </p>
          <h3>New issues ({changes.added.length})</h3>
          {list(changes.added, 'None.')}
          <h3>Fixed issues ({changes.fixed.length})</h3>
          {list(changes.fixed, 'None.')}
        </>
      )}
    </section>
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
