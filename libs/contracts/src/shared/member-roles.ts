/**
 * The roles of an account's members (docs/guide/dashboard.md, "Members and roles"), from most to least
 * trusted. Each includes what the roles after it may do.
 */
export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

const RANK: Record<MemberRole, number> = { owner: 3, admin: 2, developer: 1, viewer: 0 };

export function isMemberRole(value: unknown): value is MemberRole {
  return typeof value === 'string' && (MEMBER_ROLES as readonly string[]).includes(value);
}

/** True when `role` may do what `needed` may (owner ⊇ admin ⊇ developer ⊇ viewer). */
export function roleAtLeast(role: MemberRole, needed: MemberRole): boolean {
  return RANK[role] >= RANK[needed];
}

/**
 * Whether a member with role `actor` may invite someone as, or give someone, role `target`, or
 * manage (change, remove) a member who has it: owners manage everyone; admins everyone but owners
 * (and cannot make one); developers and viewers nobody.
 */
export function canManageRole(actor: MemberRole, target: MemberRole): boolean {
  if (actor === 'owner') return true;
  if (actor === 'admin') return target !== 'owner';
  return false;
}

/** What a role is called in messages ("an admin", "a developer"). */
export function roleWithArticle(role: MemberRole): string {
  return role === 'owner' || role === 'admin' ? `an ${role}` : `a ${role}`;
}
