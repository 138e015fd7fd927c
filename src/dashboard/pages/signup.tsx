import type Router from '@koa/router';
import { passwordProblem } from '../../people/passwords';
import { takeSignUpAttempt } from '../../people/signup-throttle';
import { EmailTakenError, looksLikeEmail, normalizeEmail, signUpUser } from '../../people/users';
import { anonymousCsrfToken } from '../csrf';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { render } from '../render';
import { logIn } from '../session';
import type { DashboardContext, DashboardState } from '../state';
import { AuthPage, EmailField, PasswordField } from './auth-forms';

export const SIGNUP_THROTTLED =
  'Too many sign-ups from your network in the last hour. Try again later, or log in if you already have an account.';

function SignupPage(props: { csrf: string; email?: string; error?: string }) {
  return (
    <AuthPage
      title="Create your account"
      action="/signup"
      csrf={props.csrf}
      error={props.error}
      submit="Create account"
      footer={
        <p>
          Already have an account? <a href="/login">Log in</a>
        </p>
      }
    >
      <EmailField value={props.email} />
      <PasswordField
        isNew
        hint="At least 10 characters; common passwords and simple patterns (such as aaaa… or 1234…) are refused."
      />
    </AuthPage>
  );
}

/** /signup: a free account, its first workspace, the new user as owner, signed in. */
export function signupRoutes(router: Router<DashboardState>, deps: DashboardDeps): void {
  router.get('/signup', (ctx) => {
    const c = ctx as DashboardContext;
    if (c.state.dashboard) return c.redirect('/');
    render(c, <SignupPage csrf={anonymousCsrfToken(c, deps)} />);
  });
  router.post('/signup', async (ctx) => {
    const c = ctx as DashboardContext;
    const form = await readForm(c);
    const email = normalizeEmail(field(form, 'email'));
    const password = form.get('password') ?? '';
    const again = (error: string, status = 422) =>
      render(c, <SignupPage csrf={anonymousCsrfToken(c, deps)} email={email} error={error} />, status);
    if (!looksLikeEmail(email))
      return again('Enter an e-mail address of at most 254 characters, such as name@example.com.');
    const problem = passwordProblem(password, email);
    if (problem) return again(problem);
    // Counted before the question "does this e-mail have an account?" is asked; past the limit the
    // answer is the same whatever the address (docs/decisions.md).
    if (!(await takeSignUpAttempt(deps.db, deps.clock, c.ip, deps.config.signupLimit)))
      return again(SIGNUP_THROTTLED, 429);
    try {
      const created = await signUpUser(deps.db, { email, password, now: deps.clock.now() });
      await logIn(c, deps, { userId: created.user.id, workspaceId: created.workspaceId });
      c.redirect('/');
    } catch (err) {
      if (!(err instanceof EmailTakenError)) throw err;
      again('This e-mail address already has an account. Log in instead.');
    }
  });
}
