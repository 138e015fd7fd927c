import type Router from '@koa/router';
import { checkCredentialsThrottled } from '../../people/login-throttle';
import { endSession } from '../../people/sessions';
import { membershipsOf, normalizeEmail } from '../../people/users';
import { clearCookie, SESSION_COOKIE } from '../cookies';
import { anonymousCsrfToken } from '../csrf';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { render } from '../render';
import { logIn, secureCookies } from '../session';
import type { DashboardContext, DashboardState } from '../state';
import { AuthPage, EmailField, PasswordField } from './auth-forms';

/** One message for every refusal: an unknown e-mail, a wrong password and throttling look alike. */
export const LOGIN_REFUSED = 'That e-mail and password did not work. Check them, or wait a few minutes and try again.';

function LoginPage(props: { csrf: string; next: string; email?: string; error?: string }) {
  return (
    <AuthPage
      title="Log in"
      action={`/login?next=${encodeURIComponent(props.next)}`}
      csrf={props.csrf}
      error={props.error}
      submit="Log in"
      footer={
        <p>
          No account yet? <a href="/signup">Create account</a>
        </p>
      }
    >
      <EmailField value={props.email} />
      <PasswordField isNew={false} />
    </AuthPage>
  );
}

/** Only a path of this site: `next` must never send a user elsewhere after log-in. */
function localPath(raw: unknown): string {
  return typeof raw === 'string' && /^\/(?![/\\])/.test(raw) ? raw : '/';
}

export function loginRoutes(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/login', (ctx) => {
    const c = ctx as DashboardContext;
    const next = localPath(c.query.next);
    if (c.state.dashboard) return c.redirect(next);
    render(c, <LoginPage csrf={anonymousCsrfToken(c, deps)} next={next} />);
  });

  router.post('/login', async (ctx) => {
    const c = ctx as DashboardContext;
    const form = await readForm(c);
    const email = normalizeEmail(field(form, 'email'));
    const password = form.get('password') ?? '';
    const next = localPath(c.query.next);
    const user = await checkCredentialsThrottled(deps.db, deps.clock, { email, password, ip: c.ip });
    const workspace = user ? (await membershipsOf(deps.db, user.id))[0] : undefined;
    if (!user || !workspace) {
      return render(
        c,
        <LoginPage csrf={anonymousCsrfToken(c, deps)} next={next} email={email} error={LOGIN_REFUSED} />,
        401,
      );
    }
    if (c.state.dashboard) await endSession(deps.db, deps.clock, c.state.dashboard.session.tokenHash);
    await logIn(c, deps, { userId: user.id, workspaceId: workspace.workspaceId });
    c.redirect(next);
  });

  router.post('/logout', async (ctx) => {
    const c = ctx as DashboardContext;
    if (c.state.dashboard) await endSession(deps.db, deps.clock, c.state.dashboard.session.tokenHash);
    clearCookie(c, secureCookies(deps), SESSION_COOKIE);
    c.redirect('/login');
  });
}
