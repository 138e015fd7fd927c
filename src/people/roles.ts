/** Roles per workspace: owner (members, plan, all) > developer (keys, webhooks, audits, branding) > viewer (read only). */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, developer: 1, owner: 2 };

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}

export function parseRole(raw: unknown): Role | null {
  return typeof raw === 'string' && (ROLES as readonly string[]).includes(raw) ? (raw as Role) : null;
}
