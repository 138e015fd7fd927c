import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { systemClock } from '../../clock';
import type { Db } from '../../db/knex';
import { NotFoundError } from '../../accounts/repository';
import { passwordProblem } from '../../people/passwords';
import { parseRole, type Role } from '../../people/roles';
import { addMembership, insertUser, listUsers, looksLikeEmail, normalizeEmail } from '../../people/users';
import { run } from '../run';

const roleOption = (value: string): Role => {
  const role = parseRole(value);
  if (!role) throw new InvalidArgumentError('must be one of owner, developer, viewer');
  return role;
};

/** The password, read from standard input (never an argument: those end up in shell history and `ps`). */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** The account's first workspace, where the user becomes a member. */
async function firstWorkspace(db: Db, accountId: string): Promise<string> {
  const row = await db('workspaces').where({ account_id: accountId }).orderBy('created_at', 'asc').first('id');
  if (!row) throw new NotFoundError(`account ${accountId} does not exist`);
  return row.id;
}

/** `user create|list`: dashboard users and their roles. */
export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('Dashboard users and their roles');
  user
    .command('create')
    .description("Create a dashboard user in the account's first workspace (password on standard input)")
    .requiredOption('--email <email>', 'e-mail address to log in with')
    .requiredOption('--account <id>', 'account id (acct_…)')
    .requiredOption('--role <role>', 'owner, developer or viewer', roleOption)
    .option('--json', 'print one JSON object')
    .action((opts: { email: string; account: string; role: Role; json?: boolean }) =>
      run(opts.json, async (db) => {
        const email = normalizeEmail(opts.email);
        if (!looksLikeEmail(email)) throw new Error(`"${opts.email}" is not an e-mail address`);
        const password = await readPassword();
        const problem = passwordProblem(password, email);
        if (problem) throw new Error(problem);
        const workspaceId = await firstWorkspace(db, opts.account);
        const now = systemClock.now();
        const created = await insertUser(db, { email, password, now });
        await addMembership(db, { workspaceId, userId: created.id, role: opts.role, now });
        const json = {
          user_id: created.id,
          email,
          account_id: opts.account,
          workspace_id: workspaceId,
          role: opts.role,
        };
        return { json, text: `Created user ${created.id} (${email}), ${opts.role} of workspace ${workspaceId}.` };
      }),
    );
  user
    .command('list')
    .description('List dashboard users with their workspaces and roles')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      run(opts.json, async (db) => {
        const users = await listUsers(db);
        const data = users.map((u) => ({
          user_id: u.id,
          email: u.email,
          created_at: u.created_at.toISOString(),
          memberships: u.memberships,
        }));
        const text = data.length
          ? data
              .map(
                (u) => `${u.user_id}  ${u.email}  ${u.memberships.map((m) => `${m.workspace_id}:${m.role}`).join(' ')}`,
              )
              .join('\n')
          : 'No users yet.';
        return { json: { data }, text };
      }),
    );
}
