import { DomainField, PostForm } from '../components';
import type { DashboardContext } from '../state';
import { ProblemNotice, UpgradeNotice } from './audits-notices';

export interface SiteListItem {
  site_id: string;
  domain: string;
  schedule: string;
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
      <button type="submit">Add site</button>
    </PostForm>
  );
}

function SiteTable(props: SitesPageProps) {
  return (
    <div class="table-wrap">
      <table>
        <caption>Monitored sites</caption>
        <thead>
          <tr>
            <th scope="col">Site</th>
            <th scope="col">Schedule</th>
            <th scope="col">State</th>
            <th scope="col">Latest audit</th>
            {props.canEdit ? <th scope="col">Actions</th> : null}
          </tr>
        </thead>
        <tbody>
          {props.sites.map((site) => (
            <tr>
              <th scope="row">
                <a href={`${props.basePath}/sites/${site.site_id}`}>{site.domain}</a>
              </th>
              <td>{site.schedule}</td>
              <td>
                {site.paused ? (site.paused_reason === 'tier_limit' ? 'Paused (plan limit)' : 'Paused') : 'Running'}
              </td>
              <td>
                {site.last_audit_id ? (
                  <a href={`${props.basePath}/audits/${site.last_audit_id}`}>{site.last_audit_id}</a>
                ) : (
                  'None yet'
                )}
              </td>
              {props.canEdit ? (
                <td>
                  <PostForm
                    ctx={props.ctx}
                    action={`${props.basePath}/sites/${site.site_id}/${site.paused ? 'resume' : 'pause'}`}
                    class="inline"
                  >
                    <button type="submit" aria-label={`${site.paused ? 'Resume' : 'Pause'} ${site.domain}`}>
                      {site.paused ? 'Resume' : 'Pause'}
                    </button>
                  </PostForm>
                  <PostForm
                    ctx={props.ctx}
                    action={`${props.basePath}/sites/${site.site_id}/delete`}
                    class="inline"
                    confirm={`Stop monitoring ${site.domain}? Its triage is deleted; its audits stay.`}
                  >
                    <button type="submit" aria-label={`Delete ${site.domain}`}>
                      Delete
                    </button>
                  </PostForm>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">Each site is audited on its schedule, through the same quota as the audits you run.</p>
    </div>
  );
}
