import { accountUsage, type Usage } from '../../accounts/usage';
import { listAudits, type AuditRow } from '../../audits/repository';
import { requireLogin } from '../access';
import { When } from '../components';
import type { DashboardDeps } from '../deps';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';
import { statusLabel } from './audits-labels';

const RECENT_AUDITS = 5;

function UsageMeter(props: { usage: Usage }) {
  const { usage } = props;
  return (
    <section class="card" aria-labelledby="usage-title">
      <h2 id="usage-title">Live audits this month</h2>
      <label for="usage-meter">
        {usage.used} of {usage.limit} used, {usage.remaining} left
      </label>
      <meter id="usage-meter" class="meter" min={0} max={usage.limit} value={usage.used} />
      <p class="hint">
        Resets on <When at={usage.period.end} />. Test audits and the first audit of each site are free.
      </p>
      <p>
        Plan: <strong>{usage.tier}</strong>
      </p>
    </section>
  );
}

function RecentAudits(props: { ctx: DashboardContext; audits: AuditRow[] }) {
  const mode = props.ctx.state.mode;
  return (
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Recent {mode} audits</h2>
      {props.audits.length === 0 ? (
        <p>
          No {mode} audits yet. <a href={modePath(mode, '/audits')}>Run your first audit</a>.
        </p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Score</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {props.audits.map((audit) => (
                <tr>
                  <td>
                    <a href={modePath(mode, `/audits/${audit.id}`)}>{audit.domain}</a>
                  </td>
                  <td>{statusLabel(audit.status)}</td>
                  <td>{audit.score ?? '—'}</td>
                  <td>
                    <When at={audit.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** `/` and `/test`: quota position, plan and the latest audits at a glance. */
export function overviewRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/', requireLogin, async (ctx) => {
    const c = ctx as DashboardContext;
    const me = signedIn(c);
    const [usage, recent] = await Promise.all([
      accountUsage(deps.db, me.workspace.accountId, deps.clock.now()),
      listAudits(deps.db, { workspaceId: me.workspace.id, mode: c.state.mode, limit: RECENT_AUDITS }),
    ]);
    render(
      c,
      <Layout ctx={c} title="Overview">
        <div class="cards">
          <UsageMeter usage={usage} />
        </div>
        <RecentAudits ctx={c} audits={recent.rows} />
      </Layout>,
    );
  });
}
