import { passwordProblem } from '../../people/passwords';
import { endOtherSessions } from '../../people/sessions';
import { checkCredentialsThrottled } from '../../people/login-throttle';
import { setPassword } from '../../people/users';
import { requireLogin } from '../access';
import { ErrorMessage, PostForm } from '../components';
import type { DashboardDeps } from '../deps';
import { readForm } from '../form';
import { Layout } from '../layout';
import { render } from '../render';
import type { PageRoutes } from '../pages';
import { signedIn, type DashboardContext } from '../state';
import { PasswordField } from './auth-forms';

/** Wrong and throttled look alike, as at log-in. */
const CURRENT_REFUSED = 'Your current password is not right. Check it, or wait a few minutes and try again.';

function PasswordPage(props: { ctx: DashboardContext; error?: string; done?: boolean }) {
  return (
    <Layout ctx={props.ctx} title="Change password">
      <ErrorMessage message={props.error} />
      {props.done && (
        <p class="notice" role="status">
          Your password is changed. You were logged out everywhere else.
        </p>
      )}
      <PostForm ctx={props.ctx} action="/password" class="stack">
        <PasswordField id="current" label="Current password" isNew={false} />
        <PasswordField
          id="new"
          label="New password"
          isNew
          hint="At least 10 characters; common passwords and simple patterns (such as aaaa… or 1234…) are refused."
        />
        <button type="submit">Change password</button>
      </PostForm>
    </Layout>
  );
}

/** `/password`: a new password ends every other session of the user. */
export function passwordRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  pages.get('/password', requireLogin, (ctx) =>
    render(ctx as DashboardContext, <PasswordPage ctx={ctx as DashboardContext} />),
  );
  pages.post('/password', requireLogin, async (ctx) => {
    const c = ctx as DashboardContext;
    const me = signedIn(c);
    const form = await readForm(c);
    const current = form.get('current') ?? '';
    const next = form.get('new') ?? '';
    // Throttled like a log-in: a stolen session cookie must not buy unlimited guesses at the password.
    const checked = await checkCredentialsThrottled(deps.db, deps.clock, {
      email: me.user.email,
      password: current,
      ip: c.ip,
    });
    if (!checked) return render(c, <PasswordPage ctx={c} error={CURRENT_REFUSED} />, 422);
    const problem = passwordProblem(next, me.user.email);
    if (problem) return render(c, <PasswordPage ctx={c} error={problem} />, 422);
    await setPassword(deps.db, me.user.id, next, deps.clock.now());
    await endOtherSessions(deps.db, deps.clock, me.user.id, me.session.tokenHash);
    render(c, <PasswordPage ctx={c} done />);
  });
}
