import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { ApiKeysService } from '../auth/api-keys.service';
import { InvitationsRepository } from './invitations.repository';
import { MemberContext, MembersService } from '../memberships/members.service';

export interface MemberRemoved {
  ended_sessions: number;
  /** The member's pending invitations, withdrawn (always: they no longer speak for the account). */
  canceled_invitations: number;
  /** Keys the member made in the dashboard, revoked (only when asked: `revoke_keys`). */
  revoked_keys: number;
}

/**
 * Removes a member (or lets one leave) and takes away what they could still use: the invitations
 * they sent are withdrawn, and with `revokeKeys` the keys they made are revoked (a key they copied
 * would otherwise keep working). Each is in the audit log (`member.invitation_revoked`,
 * `key.revoked` with `reason`), besides `member.removed` with the counts.
 */
@Injectable()
export class RemoveMember {
  constructor(
    private readonly members: MembersService,
    private readonly keys: ApiKeysService,
    private readonly invitations: InvitationsRepository,
    private readonly audit: AuditService,
  ) {}

  async execute(context: MemberContext, userId: string, actor: AuditActor, revokeKeys: boolean): Promise<MemberRemoved> {
    const { accountId } = context;
    const removed = await this.members.remove(context, userId, actor);
    const withdrawn = await this.invitations.revokeSentBy(accountId, userId);
    for (const invitation of withdrawn) {
      await this.audit.record({ accountId, actor, action: 'member.invitation_revoked', target: invitation.email, details: { role: invitation.role, reason: 'inviter removed' } });
    }
    let revoked = 0;
    if (revokeKeys) {
      const theirs = (await this.keys.list(accountId)).filter((key) => key.createdBy === userId && key.revokedAt === null);
      for (const key of theirs) {
        // Revoked meanwhile by someone else: nothing left to do for that key.
        const done = await this.keys.revoke(accountId, key.id).then(() => true, (error: unknown) => {
          if (error instanceof NotFoundError) return false;
          throw error;
        });
        if (!done) continue;
        await this.audit.record({ accountId, actor, action: 'key.revoked', target: key.id, details: { name: key.name, reason: 'creator removed' } });
        revoked++;
      }
    }
    return { ended_sessions: removed, canceled_invitations: withdrawn.length, revoked_keys: revoked };
  }
}
