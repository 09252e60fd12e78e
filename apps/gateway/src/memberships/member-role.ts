/** The roles live in the contracts lib, shared with the dashboard's pages (which hide what a role cannot do). */
export { canManageRole, isMemberRole, MEMBER_ROLES, roleAtLeast, roleWithArticle } from '@gen/contracts';
export type { MemberRole } from '@gen/contracts';
