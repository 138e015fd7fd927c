import type { ComponentChildren } from 'preact';
import { Document } from './render';
import { modePath, signedIn, type DashboardContext } from './state';

const NAV = [
  ['Overview', '/'],
  ['Audits', '/audits'],
  ['Sites', '/sites'],
  ['API keys', '/keys'],
  ['Webhooks', '/webhooks'],
  ['Notifications', '/notification-channels'],
  ['Branding', '/branding'],
  ['Members', '/members'],
  ['Plan', '/plan'],
] as const;

/** The other mode's address of the current page: `/keys` ↔ `/test/keys`. */
function otherModePath(ctx: DashboardContext): string {
  if (ctx.state.mode === 'test') return ctx.path.replace(/^\/test/, '') || '/';
  return modePath('test', ctx.path);
}

/** Frame of every signed-in page: workspace, test-data switch, navigation, log-out. */
export function Layout(props: { ctx: DashboardContext; title: string; children: ComponentChildren }) {
  const { ctx } = props;
  const me = signedIn(ctx);
  const test = ctx.state.mode === 'test';
  const current = ctx.path.replace(/^\/test/, '') || '/';
  return (
    <Document title={props.title}>
      <header class={test ? 'top test-mode' : 'top'}>
        <span class="workspace">{me.workspace.name}</span>
        <a class="mode-switch" href={otherModePath(ctx)} aria-label={`Test data: ${test ? 'on' : 'off'}`}>
          <span class="switch" aria-hidden="true" data-on={test ? 'yes' : 'no'} />
          Test data {test ? 'on' : 'off'}
        </a>
        <form method="post" action="/logout" class="logout">
          <input type="hidden" name="_csrf" value={me.csrfToken} />
          <button type="submit">Log out</button>
        </form>
      </header>
      {test && (
        <p class="banner" role="status">
          You are viewing test data. Nothing here is charged or crawled for real.
        </p>
      )}
      <nav aria-label="Main">
        <ul>
          {NAV.map(([label, path]) => (
            <li>
              <a
                href={modePath(ctx.state.mode, path)}
                aria-current={current === path || (path !== '/' && current.startsWith(`${path}/`)) ? 'page' : undefined}
              >
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main">
        <h1>{props.title}</h1>
        {props.children}
      </main>
      <footer>
        Signed in as {me.user.email} · {me.workspace.role} · <a href="/password">Change password</a>
      </footer>
    </Document>
  );
}
