import { PostForm, When } from '../components';
import type { DashboardContext } from '../state';
import { ProblemNotice } from './audits-notices';
import { CategoryCharts, ScoreChart, type CategoryPoint, type ChartPoint } from './site-chart';
import { ComparisonSection, type NamedFinding, type SiteComparison } from './site-compare';
import { scheduleInWords, TimingFields, type SiteListItem, type TimingValues } from './sites';

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
  ctx: DashboardContext;
  basePath: string;
  /** As the API shows it (src/presenters/sites.ts). */
  site: SiteListItem & { next_run_at: string | null };
  /** Developers and owners change the schedule; viewers read it. */
  canEdit: boolean;
  schedules: readonly string[];
  /** What the schedule form shows: the site's schedule, or what was typed before a refusal. */
  scheduleForm: { schedule: string } & TimingValues;
  /** The schedule was just changed. */
  saved: boolean;
  /** Why the schedule was not changed (the site service's message). */
  problem?: { message: string; requestId?: string };
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
 * `/sites/{id}`: its schedule (changed through the service PATCH /v1/sites/{id} calls), the score over time (overall and per category), the changes between two audits
 * (the latest two unless chosen), skipped runs, and every finding's history.
 */
export function SiteDetailPage(props: SiteDetailProps) {
  const { site, basePath } = props;
  const siteBase = `${basePath}/sites/${site.site_id}`;
  return (
    <>
      <p>
        <a href={`${basePath}/sites`}>All sites</a>
      </p>
      <ScheduleSection {...props} siteBase={siteBase} />
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

const EDIT_HINT =
  'A weekday is for weekly schedules and a day of the month for monthly ones: leave the other on None or empty. Daylight saving is followed; a time the clocks skip does not run that day.';

/** The schedule in the site's words and its next run in its own zone; the form to change them, open after a refusal. */
function ScheduleSection(props: SiteDetailProps & { siteBase: string }) {
  const { site } = props;
  return (
    <section aria-labelledby="schedule-heading">
      <h2 id="schedule-heading">Schedule</h2>
      {props.saved ? (
        <p class="notice notice-success" role="status">
          Schedule saved.
        </p>
      ) : null}
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      <p>
        Audited {scheduleInWords(site)}
        {site.paused ? ' (paused: no run until resumed)' : null}.{' '}
        {site.next_run_at ? <NextRun at={site.next_run_at} timeZone={site.time_zone ?? 'UTC'} /> : null}
      </p>
      {props.canEdit ? (
        <details open={!!props.problem}>
          <summary>Change the schedule</summary>
          <PostForm ctx={props.ctx} action={`${props.siteBase}/schedule`} class="card">
            <label for="site-schedule">Schedule</label>
            <select id="site-schedule" name="schedule">
              {props.schedules.map((s) => (
                <option value={s} selected={s === props.scheduleForm.schedule}>
                  {s}
                </option>
              ))}
            </select>
            <TimingFields values={props.scheduleForm} emptyDay="None" hint={EDIT_HINT} />
            <button type="submit">Save schedule</button>
          </PostForm>
        </details>
      ) : null}
    </section>
  );
}

/** "Next run: 21 Mar 2027, 02:30 Europe/Berlin", the instant machine-readable. */
function NextRun(props: { at: string; timeZone: string }) {
  const local = new Intl.DateTimeFormat('en-GB', {
    timeZone: props.timeZone,
    dateStyle: 'medium',
    timeStyle: 'short',
  }).format(new Date(props.at));
  return (
    <>
      Next run:{' '}
      <time dateTime={props.at}>
        {local} {props.timeZone}
      </time>
      .
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
