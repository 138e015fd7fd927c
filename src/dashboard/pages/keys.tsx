import {
  allowlistsIncluded,
  createKey,
  listKeys,
  revokeKey,
  setKeyAllowlist,
  type KeyListing,
} from '../../accounts/key-service';
import { NotFoundError } from '../../accounts/repository';
import { FEATURE_MIN_TIER } from '../../accounts/tiers';
import { ApiError } from '../../errors';
import { may, requireLogin, requireRole } from '../access';
import { ErrorMessage, PostForm, SecretField, When } from '../components';
import type { DashboardDeps } from '../deps';
import { field, readForm } from '../form';
import { Layout } from '../layout';
import type { PageRoutes } from '../pages';
import { render } from '../render';
import { modePath, signedIn, type DashboardContext } from '../state';

type KeyRow = KeyListing;

function KeysPage(props: {
  ctx: DashboardContext;
  keys: KeyRow[];
  allowlists: boolean;
  newKey?: string;
  error?: string;
}) {
  const { ctx } = props;
  const mode = ctx.state.mode;
  const canEdit = may(ctx, 'developer');
  return (
    <Layout ctx={ctx} title="API keys">
      <p>
        {mode === 'test'
          ? 'Test keys run simulated audits: nothing is crawled or charged.'
          : 'Live keys run real audits, counted against your monthly quota.'}
      </p>
      <ErrorMessage message={props.error} />
      {props.newKey && (
        <SecretField
          id="new-key"
          label="New API key"
          value={props.newKey}
          hint="Copy it now: this is the only time it is shown. Keep it secret, like a password."
        />
      )}
      {canEdit && (
        <PostForm ctx={ctx} action={modePath(mode, '/keys')}>
          <button type="submit">Create key</button>
        </PostForm>
      )}
      <h2>Your {mode} keys</h2>
      {props.keys.length === 0 ? (
        <p>No {mode} keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Mode</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                {props.allowlists && <th scope="col">Allowed addresses</th>}
                {canEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {props.keys.map((key) => (
                <KeyTableRow ctx={ctx} key={key.key_id} row={key} allowlists={props.allowlists} canEdit={canEdit} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {!props.allowlists && (
        <p class="hint">
          Restricting a key to your servers' addresses (IP allowlist) is part of the {FEATURE_MIN_TIER.ip_allowlists}{' '}
          plan and up. <a href={modePath(mode, '/plan')}>See plans</a>.
        </p>
      )}
    </Layout>
  );
}

function KeyTableRow(props: { ctx: DashboardContext; row: KeyRow; allowlists: boolean; canEdit: boolean }) {
  const { ctx, row } = props;
  const base = modePath(ctx.state.mode, `/keys/${row.key_id}`);
  const active = !row.revoked_at;
  return (
    <tr>
      <td>
        <code>{row.prefix}…</code>
      </td>
      <td>{row.mode}</td>
      <td>
        <When at={row.created_at} />
      </td>
      <td>
        <When at={row.last_used_at} />
      </td>
      <td>
        {active ? (
          'Active'
        ) : (
          <>
            Revoked <When at={row.revoked_at} />
          </>
        )}
      </td>
      {props.allowlists && (
        <td>
          {props.canEdit && active ? (
            <PostForm ctx={ctx} action={`${base}/allowlist`}>
              <label for={`cidrs-${row.key_id}`}>Allowed addresses for {row.prefix}</label>
              <textarea id={`cidrs-${row.key_id}`} name="cidrs" rows={2}>
                {(row.allowed_cidrs ?? []).join('\n')}
              </textarea>
              <p class="hint">One IP or range per line (203.0.113.0/24); empty allows any address.</p>
              <button type="submit" class="secondary">
                Save addresses
              </button>
            </PostForm>
          ) : (
            (row.allowed_cidrs ?? []).join(', ') || 'Any'
          )}
        </td>
      )}
      {props.canEdit && (
        <td>
          {active && (
            <PostForm
              ctx={ctx}
              action={`${base}/revoke`}
              confirm={`Revoke the key ${row.prefix}…? Requests made with it will be refused at once.`}
            >
              <button type="submit" class="danger" aria-label={`Revoke ${row.prefix}`}>
                Revoke
              </button>
            </PostForm>
          )}
        </td>
      )}
    </tr>
  );
}

/** `/keys`, `/test/keys`: create (shown once), list, revoke, IP allowlists (team and up), through src/accounts/key-service.ts. */
export function keyRoutes(pages: PageRoutes, deps: DashboardDeps): void {
  const show = async (ctx: DashboardContext, extra: { newKey?: string; error?: string } = {}, status = 200) => {
    const me = signedIn(ctx);
    const keys = await listKeys(deps, me.workspace.id, ctx.state.mode);
    const allowlists = await allowlistsIncluded(deps, me.workspace.id);
    render(ctx, <KeysPage ctx={ctx} keys={keys} allowlists={allowlists} {...extra} />, status);
  };
  const owner = (ctx: DashboardContext) => ({ workspaceId: signedIn(ctx).workspace.id, mode: ctx.state.mode });

  pages.get('/keys', requireLogin, (ctx) => show(ctx as DashboardContext));

  // The new key is shown in the answer to this POST and never stored in clear, so no redirect here.
  pages.post('/keys', requireLogin, requireRole('developer'), async (ctx) => {
    const c = ctx as DashboardContext;
    const created = await createKey(deps, owner(c));
    await show(c, { newKey: created.key }, 201);
  });

  // Another workspace's (or mode's) key is not found: back to this page, nothing changed.
  pages.post('/keys/:keyId/revoke', requireLogin, requireRole('developer'), async (ctx) => {
    const c = ctx as DashboardContext;
    await revokeKey(deps, c.params.keyId ?? '', owner(c)).catch(ignoreNotFound);
    c.redirect(modePath(c.state.mode, '/keys'));
  });

  pages.post('/keys/:keyId/allowlist', requireLogin, requireRole('developer'), async (ctx) => {
    const c = ctx as DashboardContext;
    const cidrs = field(await readForm(c), 'cidrs').split(/[\s,]+/);
    try {
      await setKeyAllowlist(deps, c.params.keyId ?? '', cidrs, owner(c));
    } catch (err) {
      if (err instanceof ApiError) return show(c, { error: err.message }, err.code === 'tier_required' ? 403 : 422);
      ignoreNotFound(err);
    }
    c.redirect(modePath(c.state.mode, '/keys'));
  });
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof NotFoundError)) throw err;
}
