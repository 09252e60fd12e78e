import { SetMetadata } from '@nestjs/common';
import { ForbiddenError } from '@gen/errors';
import { MemberRole, roleAtLeast, roleWithArticle } from '../memberships/member-role';

export const REQUIRED_ROLE = 'dashboard:required-role';

/**
 * The least role a dashboard route needs on the session's account (docs/guide/dashboard.md, "Members and
 * roles"), checked by DashboardSessionGuard on the server whatever the pages show. Every route behind
 * that guard declares one: a route without it is refused, so a new route cannot be open by mistake.
 */
export const RequiresRole = (role: MemberRole) => SetMetadata(REQUIRED_ROLE, role);

/** Refuses (403) a member whose role is below `needed`; for checks inside a service (e.g. an owner-only setting). */
export function assertRole(role: MemberRole, needed: MemberRole): void {
  if (!roleAtLeast(role, needed)) {
    throw new ForbiddenError(
      `Your role on this account is ${role}; this needs ${roleWithArticle(needed)}${needed === 'owner' ? '' : ' or above'}. Ask an owner or admin of the account.`,
    );
  }
}
