import type Router from '@koa/router';
import { acceptInvitation, openInvitation, type Acceptor, type Invitation } from '../../people/invitations';
import { checkCredentialsThrottled } from '../../people/login-throttle';
import { hashPassword, passwordProblem } from '../../people/passwords';
import { EmailTakenError, findUserByEmail } from '../../people/users';
import { anonymousCsrfToken } from '../csrf';
import type { DashboardDeps } from '../deps';
import { readForm } from '../form';
import { render, renderStatus } from '../render';
import { logIn } from '../session';
import type { DashboardContext, DashboardState } from '../state';
import { AuthPage, EmailField, PasswordField } from './auth-forms';
import { LOGIN_REFUSED } from './login';

function InvitationPage(props: {
  ctx: DashboardContext;
  invitation: Invitation;
  hasAccount: boolean;
  csrf: string;
  error?: string;
}) {
  const { invitation } = props;
  return (
    <AuthPage
      title={`Join ${invitation.workspaceName}`}
      action={props.ctx.path}
      csrf={props.csrf}
      error={props.error}
      submit="Accept invitation"
    >
      <p>
        You are invited as <strong>{invitation.role}</strong>.{' '}
        {props.hasAccount ? 'Enter your password to accept.' : 'Choose a password for your new account.'}
      </p>
      <EmailField value={invitation.email} readOnly />
      <PasswordField
        isNew={!props.hasAccount}
        hint={
          props.hasAccount
            ? undefined
            : 'At least 10 characters; common passwords and simple patterns (such as aaaa… or 1234…) are refused.'
        }
      />
    </AuthPage>
  );
}

/** `/invitations/{token}`: accepting creates the user (or checks an existing user's password) and adds the membership. */
export function invitationRoutes(router: Router<DashboardState>, deps: DashboardDeps): void {
  const csrfOf = (ctx: DashboardContext) => ctx.state.dashboard?.csrfToken ?? anonymousCsrfToken(ctx, deps);
  const gone = (ctx: DashboardContext) =>
    renderStatus(
      ctx,
      410,
      'This invitation no longer works',
      'It was already used, withdrawn or has expired. If you accepted it, log in; otherwise ask for a new one.',
    );

  router.get('/invitations/:token', async (ctx) => {
    const c = ctx as DashboardContext;
    const invitation = await openInvitation(deps.db, deps.clock, c.params.token);
    if (!invitation) return gone(c);
    const hasAccount = !!(await findUserByEmail(deps.db, invitation.email));
    render(c, <InvitationPage ctx={c} invitation={invitation} hasAccount={hasAccount} csrf={csrfOf(c)} />);
  });

  router.post('/invitations/:token', async (ctx) => {
    const c = ctx as DashboardContext;
    const invitation = await openInvitation(deps.db, deps.clock, c.params.token);
    if (!invitation) return gone(c);
    const password = (await readForm(c)).get('password') ?? '';
    const existing = await findUserByEmail(deps.db, invitation.email);
    const again = (error: string, status: number) =>
      render(
        c,
        <InvitationPage ctx={c} invitation={invitation} hasAccount={!!existing} csrf={csrfOf(c)} error={error} />,
        status,
      );

    let acceptor: Acceptor;
    if (existing) {
      const user = await checkCredentialsThrottled(deps.db, deps.clock, {
        email: invitation.email,
        password,
        ip: c.ip,
      });
      if (!user) return again(LOGIN_REFUSED, 401);
      acceptor = { userId: user.id };
    } else {
      const problem = passwordProblem(password, invitation.email);
      if (problem) return again(problem, 422);
      acceptor = { newUser: { passwordHash: await hashPassword(password) } };
    }
    let userId: string | null;
    try {
      userId = await acceptInvitation(deps.db, deps.clock, invitation, acceptor);
    } catch (err) {
      if (!(err instanceof EmailTakenError)) throw err;
      // Someone signed up with this address since the page was shown: it now takes that account's password.
      return renderStatus(c, 409, 'This e-mail address now has an account', 'Reload this page and enter its password.');
    }
    if (!userId) return gone(c);
    await logIn(c, deps, { userId, workspaceId: invitation.workspaceId });
    c.redirect('/');
  });
}
