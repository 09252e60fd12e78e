import { Injectable } from '@nestjs/common';
import { ForbiddenError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import type { MemberRole } from './member-role';
import { removalCheck, roleChangeCheck, transferCheck } from './member-rules';
import { Member, Membership, MembersRepository } from './members.repository';

/** Who acts on an account's members: the signed-in user, on their session's account. */
export interface MemberContext {
  accountId: string;
  userId: string;
  email: string;
}

/**
 * An account's members: listing, role changes, removal (their sessions on the account end at once),
 * ownership transfer, and a user's accounts (docs/guide/dashboard.md, "Members and roles"). Each change is
 * judged by member-rules.ts on the rows as locked when it is written, and recorded in the audit log.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly audit: AuditService,
  ) {}

  list(accountId: string): Promise<Member[]> {
    return this.members.list(accountId);
  }

  accountsOf(userId: string): Promise<Membership[]> {
    return this.members.accountsOf(userId);
  }

  /** The email addresses of the account's members with one of these roles. */
  emailsWithRoles(accountId: string, roles: readonly MemberRole[]): Promise<string[]> {
    return this.members.emailsWithRoles(accountId, roles);
  }

  async changeRole(context: MemberContext, userId: string, role: MemberRole, actor: AuditActor): Promise<void> {
    const before = await this.members.changeRole(context.accountId, userId, role, roleChangeCheck(context.userId, userId, role));
    await this.audit.record({ accountId: context.accountId, actor, action: 'member.role_changed', target: await this.emailOf(context, userId), details: { from: before, to: role } });
  }

  /** Removes a member, or lets the signed-in user leave (userId their own). Returns how many sessions ended. */
  async remove(context: MemberContext, userId: string, actor: AuditActor): Promise<number> {
    const target = await this.emailOf(context, userId);
    const removed = await this.members.remove(context.accountId, userId, removalCheck(context.userId, userId));
    await this.audit.record({
      accountId: context.accountId,
      actor,
      action: 'member.removed',
      target,
      details: { role: removed.role, left: userId === context.userId, ended_sessions: removed.endedSessions },
    });
    return removed.endedSessions;
  }

  /** Makes another member an owner; the signed-in owner becomes an admin. */
  async transferOwnership(context: MemberContext, toUserId: string, actor: AuditActor): Promise<void> {
    await this.members.transferOwnership(context.accountId, context.userId, toUserId, transferCheck(context.userId, toUserId));
    await this.audit.record({
      accountId: context.accountId,
      actor,
      action: 'account.ownership_transferred',
      target: await this.emailOf(context, toUserId),
      details: { from: context.email },
    });
  }

  /** Moves the session to another account of its user; 403 unless they are a member of it. */
  async switchAccount(sessionId: string, userId: string, accountId: string): Promise<void> {
    if (!(await this.members.switchSession(sessionId, userId, accountId))) {
      throw new ForbiddenError('You are not a member of that account.');
    }
  }

  /** A member's address for the audit log's target (the user id when they are not a member). */
  private async emailOf(context: MemberContext, userId: string): Promise<string> {
    return (await this.members.memberEmail(context.accountId, userId)) ?? userId;
  }
}
