import { passwordProblem } from '../../people/passwords';
import { endOtherSessions } from '../../people/sessions';
import { checkCredentials, setPassword } from '../../people/users';
import { requireLogin } from '../access';
import { ErrorMessage, PostForm } from '../components';
import type { DashboardDeps } from '../deps';
import { readForm } from '../form';
import { Layout } from '../layout';
import { render } from '../render';
import type { PageRoutes } from '../pages';
import { signedIn, type DashboardContext } from '../state';
import { PasswordField } from './auth-forms';

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
          hint="At least 10 characters; common passwords are refused."
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
    if (!(await checkCredentials(deps.db, me.user.email, current)))
      return render(c, <PasswordPage ctx={c} error="Your current password is not right." />, 422);
    const problem = passwordProblem(next, me.user.email);
    if (problem) return render(c, <PasswordPage ctx={c} error={problem} />, 422);
    await setPassword(deps.db, me.user.id, next, deps.clock.now());
    await endOtherSessions(deps.db, deps.clock, me.user.id, me.session.tokenHash);
    render(c, <PasswordPage ctx={c} done />);
  });
}
