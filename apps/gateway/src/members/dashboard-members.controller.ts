import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query, UseGuards, UseInterceptors } from '@nestjs/common';
import type { MembersReply } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { roleAtLeast } from '../memberships/member-role';
import { MembersService } from '../memberships/members.service';
import { CurrentActor } from '../sessions/audit-actor.decorator';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { InvitationsService } from './invitations.service';
import { MemberRemoved, RemoveMember } from './remove-member.service';
import { InviteDto, RoleDto, TransferOwnershipDto } from './members.dto';

/** `revoke_keys`: `true` or `false` (absent: false); anything else is refused before anything changes. */
function parseRevokeKeys(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError('revoke_keys: true or false.');
}

const userId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such member of this account.') });
const invitationId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such invitation.') });

/** Settings, then Members: who belongs to the account, invitations, roles, removal, ownership. */
@Controller('dashboard/api/members')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardMembersController {
  constructor(
    private readonly members: MembersService,
    private readonly invitations: InvitationsService,
    private readonly removeMember: RemoveMember,
  ) {}

  @Get()
  @RequiresRole('viewer')
  async list(@CurrentSession() session: LiveSession): Promise<MembersReply> {
    const manager = roleAtLeast(session.role, 'admin');
    const [members, pending] = await Promise.all([this.members.list(session.accountId), manager ? this.invitations.listPending(session.accountId) : []]);
    const now = Date.now();
    return {
      data: members.map((m) => ({
        user_id: m.userId,
        email: m.email,
        role: m.role,
        joined_at: m.joinedAt.toISOString(),
        last_sign_in_at: m.lastSignInAt?.toISOString() ?? null,
        you: m.userId === session.userId,
      })),
      invitations: pending.map((i) => ({
        id: i.id,
        email: i.email,
        role: i.role,
        invited_by: i.invitedBy,
        created_at: i.createdAt.toISOString(),
        expires_at: i.expiresAt.toISOString(),
        expired: i.expiresAt.getTime() <= now,
      })),
    };
  }

  /** Mails an invitation link; `mailed` is false when no mail could be sent (the invitation stands; send it again later). */
  @Post('invitations')
  @HttpCode(201)
  @RequiresRole('admin')
  invite(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: InviteDto): Promise<{ mailed: boolean }> {
    return this.invitations.invite(session, body, actor);
  }

  @Delete('invitations/:id')
  @HttpCode(204)
  @RequiresRole('admin')
  revoke(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Param('id', invitationId()) id: string): Promise<void> {
    return this.invitations.revoke(session.accountId, id, actor);
  }

  @Put(':userId/role')
  @HttpCode(204)
  @RequiresRole('admin')
  changeRole(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Param('userId', userId()) id: string, @Body() body: RoleDto): Promise<void> {
    return this.members.changeRole(session, id, body.role, actor);
  }

  /**
   * Removes a member (owners and admins), or leaves the account (any member, their own id). Their
   * sessions on the account end and the invitations they sent are withdrawn at once;
   * `?revoke_keys=true` also revokes the keys they made.
   */
  @Delete(':userId')
  @RequiresRole('viewer')
  remove(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('userId', userId()) id: string,
    @Query('revoke_keys') revokeKeys: string | undefined,
  ): Promise<MemberRemoved> {
    return this.removeMember.execute(session, id, actor, parseRevokeKeys(revokeKeys));
  }

  /** Makes another member an owner; you become an admin. */
  @Post('transfer-ownership')
  @HttpCode(204)
  @RequiresRole('owner')
  transfer(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: TransferOwnershipDto): Promise<void> {
    return this.members.transferOwnership(session, body.user_id, actor);
  }
}
