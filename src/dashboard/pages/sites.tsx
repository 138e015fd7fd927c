import { WEEKDAYS } from '../../sites/cadence';
import type { SiteTimingInput } from '../../sites/service';
import { timeZones } from '../../sites/zoned-time';
import { DomainField, PostForm } from '../components';
import type { DashboardContext } from '../state';
import { ProblemNotice, UpgradeNotice } from './audits-notices';
import { RecordTable, RowAction } from './record-table';

export interface SiteListItem {
  site_id: string;
  domain: string;
  schedule: string;
  /** When in its zone it runs (src/sites/cadence.ts siteTiming). */
  time_zone?: string;
  at?: string;
  weekday?: string | null;
  day_of_month?: number | null;
  paused: boolean;
  paused_reason: string | null;
  last_audit_id: string | null;
  created_at: string;
}

export interface SitesPageProps {
  ctx: DashboardContext;
  /** '' for live data, '/test' for test data. */
  basePath: string;
  /** The account's tier allows sites. */
  allowed: boolean;
  canEdit: boolean;
  sites: SiteListItem[];
  schedules: readonly string[];
  problem?: { message: string; requestId?: string };
  domain?: string;
}

/** `/sites`: the monitored sites of this workspace and mode, each audited on its schedule. */
export function SitesPage(props: SitesPageProps) {
  if (!props.allowed) return <UpgradeNotice feature="Monitored sites" tier="pro" plansHref="/plan" />;
  return (
    <>
      {props.problem ? <ProblemNotice {...props.problem} /> : null}
      {props.canEdit ? <AddSiteForm {...props} /> : null}
      {props.sites.length === 0 ? <p>No sites yet.</p> : <SiteTable {...props} />}
    </>
  );
}

function AddSiteForm(props: SitesPageProps) {
  return (
    <PostForm ctx={props.ctx} action={`${props.basePath}/sites`} class="card">
      <h2>Monitor a site</h2>
      <DomainField id="site-domain" value={props.domain} />
      <label for="site-schedule">Schedule</label>
      <select id="site-schedule" name="schedule">
        {props.schedules.map((s) => (
          <option value={s} selected={s === 'weekly'}>
            {s}
          </option>
        ))}
      </select>
      <TimingFields />
      <button type="submit">Add site</button>
    </PostForm>
  );
}

/** What the timing fields show: a site's timing, or what was typed before a refusal ('' for empty). */
export interface TimingValues {
  time_zone: string;
  at: string;
  weekday: string;
  day_of_month: string;
}

const CREATE_HINT =
  'Left empty: the time and day you add the site, in its time zone. Daylight saving is followed; a time the clocks skip does not run that day.';

/**
 * When the site runs, in the customer's time: the service's rules (src/sites/service.ts
 * resolveSiteTiming) check and default these as they do for POST and PATCH /v1/sites.
 */
export function TimingFields(props: { values?: TimingValues; emptyDay?: string; hint?: string }) {
  const values = props.values ?? { time_zone: 'UTC', at: '', weekday: '', day_of_month: '' };
  return (
    <>
      <label for="site-time-zone">Time zone</label>
      <select id="site-time-zone" name="time_zone">
        {timeZones().map((zone) => (
          <option value={zone} selected={zone === values.time_zone}>
            {zone}
          </option>
        ))}
      </select>
      <label for="site-at">Time of day</label>
      <input id="site-at" name="at" type="time" value={values.at} aria-describedby="site-timing-hint" />
      <label for="site-weekday">Weekday (weekly)</label>
      <select id="site-weekday" name="weekday" aria-describedby="site-timing-hint">
        <option value="">{props.emptyDay ?? 'Day of creation'}</option>
        {WEEKDAYS.map((day) => (
          <option value={day} selected={day === values.weekday}>
            {day}
          </option>
        ))}
      </select>
      <label for="site-day-of-month">Day of month (monthly)</label>
      <input
        id="site-day-of-month"
        name="day_of_month"
        type="number"
        min="1"
        max="28"
        value={values.day_of_month}
        aria-describedby="site-timing-hint"
      />
      <p class="hint" id="site-timing-hint">
        {props.hint ?? CREATE_HINT}
      </p>
    </>
  );
}

/** The form's timing fields for the site service; an empty field is left to its default. */
export function timingOfForm(form: URLSearchParams): SiteTimingInput {
  const given = (name: string) => form.get(name)?.trim() || undefined;
  const day = given('day_of_month');
  return {
    time_zone: given('time_zone'),
    at: given('at'),
    weekday: given('weekday'),
    // Not a number: NaN, which the service refuses by name.
    day_of_month: day === undefined ? undefined : /^[0-9]+$/.test(day) ? Number(day) : Number.NaN,
  };
}

/** "weekly, sun 02:30 Europe/Berlin" */
export function scheduleInWords(site: SiteListItem): string {
  const day = site.weekday ?? (site.day_of_month ? `day ${site.day_of_month}` : null);
  return site.at ? `${site.schedule}, ${day ? `${day} ` : ''}${site.at} ${site.time_zone}` : site.schedule;
}

function SiteTable(props: SitesPageProps) {
  return (
    <RecordTable
      caption="Monitored sites"
      columns={['Site', 'Schedule', 'State', 'Latest audit']}
      items={props.sites}
      row={(site) => ({
        head: <a href={`${props.basePath}/sites/${site.site_id}`}>{site.domain}</a>,
        cells: [
          scheduleInWords(site),
          site.paused ? (site.paused_reason === 'tier_limit' ? 'Paused (plan limit)' : 'Paused') : 'Running',
          site.last_audit_id ? (
            <a href={`${props.basePath}/audits/${site.last_audit_id}`}>{site.last_audit_id}</a>
          ) : (
            'None yet'
          ),
        ],
      })}
      actions={props.canEdit ? (site) => <SiteActions {...props} site={site} /> : undefined}
      after={<p class="hint">Each site is audited on its schedule, through the same quota as the audits you run.</p>}
    />
  );
}

function SiteActions(props: SitesPageProps & { site: SiteListItem }) {
  const { site } = props;
  const toggle = site.paused ? 'Resume' : 'Pause';
  return (
    <>
      <RowAction
        ctx={props.ctx}
        action={`${props.basePath}/sites/${site.site_id}/${site.paused ? 'resume' : 'pause'}`}
        label={toggle}
        ariaLabel={`${toggle} ${site.domain}`}
      />
      <RowAction
        ctx={props.ctx}
        action={`${props.basePath}/sites/${site.site_id}/delete`}
        confirm={`Stop monitoring ${site.domain}? Its triage is deleted; its audits stay.`}
        label="Delete"
        ariaLabel={`Delete ${site.domain}`}
      />
    </>
  );
}
