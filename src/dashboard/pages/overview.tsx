import { requireLogin } from '../access';
import type { DashboardDeps } from '../deps';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import type { DashboardContext } from '../state';

/** `/` and `/test`: the workspace at a glance. */
export function overviewRoutes(pages: PageRoutes, _deps: DashboardDeps): void {
  pages.get('/', requireLogin, (ctx) => {
    const c = ctx as DashboardContext;
    render(
      c,
      <Layout ctx={c} title="Overview">
        <p>Welcome.</p>
      </Layout>,
    );
  });
}
