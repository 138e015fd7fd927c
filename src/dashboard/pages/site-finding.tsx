import { PostForm, When } from '../components';
import type { DashboardContext } from '../state';
import { ProblemNotice } from './audits-notices';

export interface SiteFindingProps {
  ctx: DashboardContext;
  basePath: string;
  site: { site_id: string; domain: string };
  finding: { fingerprint: string; title: string; severity: string; why: string };
  /** Newest first: each audit of the page's window and whether it reported this finding (null: not recorded). */
  audits: Array<{ auditId: string; completedAt: string; score: number; found: boolean | null }>;
  triage: { status: string; note: string | null };
  triageStatuses: readonly string[];
  canEdit: boolean;
  saved?: boolean;
  problem?: { message: string; requestId?: string };
}

/** One finding of a site: in which audits it appeared, and its triage (ignored and accepted ones never count as new). */
export function SiteFindingPage(props: SiteFindingProps) {
  const siteBase = `${props.basePath}/sites/${props.site.site_id}`;
  return (
    <>
      <p>
        <a href={siteBase}>Back to {props.site.domain}</a> · <code>{props.finding.fingerprint}</code> ·{' '}
        {props.finding.severity}
      </p>
      <p>{props.finding.why}</p>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.saved ? (
        <p class="notice" role="status">
          Triage saved. Later audits carry it on this finding.
        </p>
      ) : null}
      {props.canEdit ? (
        <TriageForm {...props} action={`${siteBase}/findings/${props.finding.fingerprint}`} />
      ) : (
        <p>Triage: {props.triage.status}</p>
      )}
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">In which audits it appeared</h2>
        <div class="table-wrap">
          <table>
            <caption>Audits of this site, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Audit</th>
                <th scope="col">Score</th>
                <th scope="col">This finding</th>
              </tr>
            </thead>
            <tbody>
              {props.audits.map((a) => (
                <tr>
                  <th scope="row">
                    <a href={`${props.basePath}/audits/${a.auditId}`}>
                      <When at={a.completedAt} />
                    </a>
                  </th>
                  <td>{a.score}</td>
                  <td>{a.found === null ? 'Not recorded' : a.found ? 'Found' : 'Not found'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

function TriageForm(props: SiteFindingProps & { action: string }) {
  return (
    <PostForm ctx={props.ctx} action={props.action} class="card">
      <h2>Triage</h2>
      <label for="triage-status">Status</label>
      <select id="triage-status" name="status">
        {props.triageStatuses.map((s) => (
          <option value={s} selected={s === props.triage.status}>
            {s}
          </option>
        ))}
      </select>
      <label for="triage-note">Note</label>
      <textarea id="triage-note" name="note" rows={3} maxLength={1000}>
        {props.triage.note ?? ''}
      </textarea>
      <button type="submit">Save triage</button>
    </PostForm>
  );
}
