import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { SessionView } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { client } from '../sessions/session.controller';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import { SessionsService } from '../sessions/sessions.service';
import type { LiveSession, SessionInfo } from '../sessions/users.repository';
import { ChangePasswordDto } from './account.dto';
import type { AuditActor } from '../audit-log/audit-actions';
import { CurrentActor } from '../sessions/audit-actor.decorator';

function toSessionView(info: SessionInfo, currentId: string): SessionView {
  return {
    id: info.id,
    current: info.id === currentId,
    created_at: info.createdAt.toISOString(),
    last_seen_at: info.lastSeenAt.toISOString(),
    expires_at: info.expiresAt.toISOString(),
    ip: info.ip,
    user_agent: info.userAgent,
  };
}

const sessionId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such session.') });

/** Settings, then Account: the password and the signed-in sessions. */
@Controller('dashboard/api/account')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardAccountController {
  constructor(private readonly sessions: SessionsService) {}

  @Get('sessions')
  @RequiresRole('viewer')
  async list(@CurrentSession() session: LiveSession): Promise<{ data: SessionView[] }> {
    return { data: (await this.sessions.listSessions(session)).map((s) => toSessionView(s, session.id)) };
  }

  /** Ends every session but this one. */
  @Delete('sessions')
  @RequiresRole('viewer')
  async endOthers(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor): Promise<{ ended_sessions: number }> {
    return { ended_sessions: await this.sessions.endOtherSessions(session, actor) };
  }

  @Delete('sessions/:id')
  @RequiresRole('viewer')
  @HttpCode(204)
  end(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Param('id', sessionId()) id: string): Promise<void> {
    return this.sessions.endSession(session, id, actor);
  }

  /** The current password is required; every other session ends. */
  @Post('password')
  @RequiresRole('viewer')
  @HttpCode(200)
  async changePassword(
    @CurrentSession() session: LiveSession,
    @Body() body: ChangePasswordDto,
    @Req() request: FastifyRequest,
  ): Promise<{ ended_sessions: number }> {
    const ended = await this.sessions.changePassword(session, { currentPassword: body.current_password, newPassword: body.new_password }, client(request));
    return { ended_sessions: ended };
  }
}
