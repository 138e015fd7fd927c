import type { Db } from '../db/knex';
import type { Role } from './roles';

export interface Member {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

export async function workspaceMembers(db: Db, workspaceId: string): Promise<Member[]> {
  const rows = await db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.workspace_id', workspaceId)
    .orderBy('m.created_at', 'asc')
    .select('m.user_id', 'u.email', 'm.role', 'm.created_at');
  return rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: new Date(r.created_at) }));
}

export class LastOwnerError extends Error {}

/**
 * Changes a member's role, or removes the member (role null). A workspace always keeps an owner:
 * the change is refused when it would leave none. The workspace's owners are locked meanwhile.
 */
export async function changeMember(
  db: Db,
  input: { workspaceId: string; userId: string; role: Role | null },
): Promise<void> {
  await db.transaction(async (trx) => {
    const members = await trx('memberships')
      .where({ workspace_id: input.workspaceId })
      .forUpdate()
      .select('user_id', 'role');
    const owners = members.filter((m) => m.role === 'owner' && m.user_id !== input.userId);
    if (owners.length === 0 && input.role !== 'owner')
      throw new LastOwnerError('A workspace needs an owner: make someone else owner first.');
    const target = trx('memberships').where({ workspace_id: input.workspaceId, user_id: input.userId });
    await (input.role ? target.update({ role: input.role }) : target.delete());
  });
}
