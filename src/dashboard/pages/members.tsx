import { createInvitation, pendingInvitations, withdrawInvitation } from '../../people/invitations';
import { changeMember, LastOwnerError, workspaceMembers, type Member } from '../../people/members';
import { parseRole, ROLES } from '../../people/roles';
import { looksLikeEmail, normalizeEmail } from '../../people/users';
import { may, requireLogin, requireRole } from '../access';
import { ErrorMessage, PostForm, SecretField, When } from '../components';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';

type Pending = Awaited<ReturnType<typeof pendingInvitations>>;

const ROLE_HELP =
  'Owner: members, plan and everything else. Developer: keys, webhooks, audits, branding. Viewer: read only.';

function RoleSelect(props: { id: string; label: string; value?: string; hideLabel?: boolean }) {
  return (
    <>
      <label for={props.id} class={props.hideLabel ? 'visually-hidden' : undefined}>
        {props.label}
      </label>
      <select id={props.id} name="role">
        {ROLES.map((role) => (
          <option value={role} selected={role === (props.value ?? 'developer')}>
            {role}
          </option>
        ))}
      </select>
    </>
  );
}

function MemberRow(props: { ctx: DashboardContext; member: Member; owner: boolean }) {
  const { ctx, member } = props;
  const base = modePath(ctx.state.mode, `/members/${member.userId}`);
  return (
    <tr>
      <td>{member.email}</td>
      <td>
        {props.owner ? (
          <PostForm ctx={ctx} action={`${base}/role`} class="inline">
            <RoleSelect id={`role-${member.userId}`} label={`Role of ${member.email}`} value={member.role} hideLabel />
            <button type="submit" class="secondary">
              Change role
            </button>
          </PostForm>
        ) : (
          member.role
        )}
      </td>
      <td>
        <When at={member.joinedAt} />
      </td>
      {props.owner && (
        <td>
          <PostForm ctx={ctx} action={`${base}/remove`} confirm={`Remove ${member.email} from this workspace?`}>
            <button type="submit" class="danger" aria-label={`Remove ${member.email}`}>
              Remove
            </button>
          </PostForm>
        </td>
      )}
    </tr>
  );
}

function InviteForm(props: { ctx: DashboardContext }) {
  return (
    <>
      <h2>Invite someone</h2>
      <PostForm ctx={props.ctx} action={modePath(props.ctx.state.mode, '/members/invite')} class="stack">
        <div>
          <label for="invite-email">Email</label>
          <input id="invite-email" name="email" type="email" required maxLength={254} />
        </div>
        <div>
          <RoleSelect id="invite-role" label="Role" />
        </div>
        <button type="submit">Invite</button>
      </PostForm>
    </>
  );
}

function PendingInvitations(props: { ctx: DashboardContext; pending: Pending; owner: boolean }) {
  if (props.pending.length === 0) return null;
  return (
    <>
      <h2>Waiting for an answer</h2>
      <ul>
        {props.pending.map((invitation) => (
          <li>
            {invitation.email} as {invitation.role}, until <When at={invitation.expires_at} />
            {props.owner && (
              <PostForm
                ctx={props.ctx}
                action={modePath(props.ctx.state.mode, `/members/invitations/${invitation.id}/withdraw`)}
                class="inline"
              >
                {' '}
                <button type="submit" class="secondary" aria-label={`Withdraw the invitation of ${invitation.email}`}>
                  Withdraw
                </button>
              </PostForm>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

function MembersPage(props: {
  ctx: DashboardContext;
  members: Member[];
  pending: Pending;
  inviteLink?: string;
  error?: string;
}) {
  const { ctx } = props;
  const owner = may(ctx, 'owner');
  return (
    <Layout ctx={ctx} title="Members">
      <p class="hint">{ROLE_HELP}</p>
      <ErrorMessage message={props.error} />
      {props.inviteLink && (
        <SecretField
          id="invite-link"
          label="Invitation link"
          value={props.inviteLink}
          hint="We also sent it by e-mail. It is shown only now, works once, for 7 days."
        />
      )}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              {owner && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {props.members.map((member) => (
              <MemberRow ctx={ctx} member={member} owner={owner} />
            ))}
          </tbody>
        </table>
      </div>
      {owner && <InviteForm ctx={ctx} />}
      <PendingInvitations ctx={ctx} pending={props.pending} owner={owner} />
    </Layout>
  );
}

/** `/members`: everyone sees who is in the workspace; owners invite, change roles and remove. */
export function memberRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const show = async (ctx: DashboardContext, extra: { inviteLink?: string; error?: string } = {}, status = 200) => {
    const workspaceId = signedIn(ctx).workspace.id;
    const [members, pending] = await Promise.all([
      workspaceMembers(deps.db, workspaceId),
      pendingInvitations(deps.db, deps.clock, workspaceId),
    ]);
    render(ctx, <MembersPage ctx={ctx} members={members} pending={pending} {...extra} />, status);
  };
  const back = (ctx: DashboardContext) => ctx.redirect(modePath(ctx.state.mode, '/members'));

  pages.get('/members', requireLogin, (ctx) => show(ctx as DashboardContext));

  // The link is shown in the answer to this POST (its token is stored only as a hash).
  pages.post('/members/invite', requireLogin, requireRole('owner'), async (ctx) => {
    const c = ctx as DashboardContext;
    const me = signedIn(c);
    const form = await readForm(c);
    const email = normalizeEmail(field(form, 'email'));
    const role = parseRole(field(form, 'role'));
    if (!looksLikeEmail(email) || !role) return show(c, { error: 'Enter an e-mail address and choose a role.' }, 422);
    const { token } = await createInvitation(deps.db, deps.clock, {
      workspaceId: me.workspace.id,
      email,
      role,
      invitedBy: me.user.id,
    });
    const link = `${deps.baseUrl()}/invitations/${token}`;
    await deps.mailer.send({
      to: email,
      subject: `${me.user.email} invited you to ${me.workspace.name}`,
      text: `${me.user.email} invited you to the workspace "${me.workspace.name}" as ${role}.\n\nAccept within 7 days: ${link}\n`,
    });
    await show(c, { inviteLink: link }, 201);
  });

  const change = (role: 'from-form' | null) =>
    async function (ctx: DashboardContext) {
      const newRole = role === null ? null : parseRole(field(await readForm(ctx), 'role'));
      if (role !== null && !newRole) return back(ctx);
      try {
        await changeMember(deps.db, {
          workspaceId: signedIn(ctx).workspace.id,
          userId: ctx.params.userId,
          role: newRole,
        });
      } catch (err) {
        if (err instanceof LastOwnerError) return show(ctx, { error: err.message }, 409);
        throw err;
      }
      back(ctx);
    };
  pages.post('/members/:userId/role', requireLogin, requireRole('owner'), (ctx) =>
    change('from-form')(ctx as DashboardContext),
  );
  pages.post('/members/:userId/remove', requireLogin, requireRole('owner'), (ctx) =>
    change(null)(ctx as DashboardContext),
  );
  pages.post('/members/invitations/:id/withdraw', requireLogin, requireRole('owner'), async (ctx) => {
    const c = ctx as DashboardContext;
    await withdrawInvitation(deps.db, signedIn(c).workspace.id, c.params.id);
    back(c);
  });
}
