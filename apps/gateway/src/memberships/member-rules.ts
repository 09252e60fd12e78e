import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '@gen/errors';
import { canManageRole, MemberRole, roleAtLeast } from './member-role';
import type { MembersCheck, MembersSnapshot } from './members.repository';

/**
 * Who may change whom (docs/guide/dashboard.md, "Members and roles"), judged on the account's members as
 * the repository locked them: owners manage everyone, admins everyone but owners, a member may
 * always leave, and an account always keeps an owner.
 */

const noSuchMember = () => new NotFoundError('No such member of this account.');
const LAST_OWNER = 'An account must keep an owner: make another member an owner first (transfer ownership).';

function actorRole(members: MembersSnapshot, actorId: string): MemberRole {
  const role = members.roles.get(actorId);
  // The actor was removed between their session check and this change.
  if (!role) throw new ForbiddenError('You are no longer a member of this account.');
  return role;
}

function assertManages(actor: MemberRole, target: MemberRole): void {
  if (!roleAtLeast(actor, 'admin')) throw new ForbiddenError(`Your role on this account is ${actor}; managing members needs an admin or owner.`);
  if (!canManageRole(actor, target)) throw new ForbiddenError('Only an owner can make someone an owner or change or remove an owner.');
}

export function roleChangeCheck(actorId: string, targetId: string, role: MemberRole): MembersCheck {
  return (members) => {
    const actor = actorRole(members, actorId);
    const current = members.roles.get(targetId);
    if (!current) throw noSuchMember();
    assertManages(actor, current);
    assertManages(actor, role);
    if (current === role) throw new ConflictError(`This member is already ${role === 'owner' || role === 'admin' ? 'an' : 'a'} ${role}.`);
    if (current === 'owner' && members.owners === 1) throw new ConflictError(`The last owner cannot be demoted. ${LAST_OWNER}`);
  };
}

export function removalCheck(actorId: string, targetId: string): MembersCheck {
  return (members) => {
    const actor = actorRole(members, actorId);
    const target = members.roles.get(targetId);
    if (!target) throw noSuchMember();
    if (actorId !== targetId) assertManages(actor, target);
    if (target === 'owner' && members.owners === 1) throw new ConflictError(`The last owner cannot leave the account. ${LAST_OWNER}`);
  };
}

export function transferCheck(actorId: string, toUserId: string): MembersCheck {
  return (members) => {
    if (actorRole(members, actorId) !== 'owner') throw new ForbiddenError('Only an owner can transfer ownership.');
    if (toUserId === actorId) throw new ValidationError('user_id: Choose another member: you are an owner already.');
    const target = members.roles.get(toUserId);
    if (!target) throw noSuchMember();
    if (target === 'owner') throw new ConflictError('This member is an owner already.');
  };
}
