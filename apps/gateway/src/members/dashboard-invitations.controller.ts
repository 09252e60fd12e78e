import { Body, Controller, HttpCode, Post, Put, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { InvitationPreviewReply, SessionReply } from '@gen/contracts';
import { UnauthorizedError } from '@gen/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MembersService } from '../memberships/members.service';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { AllowedBeforeTwoFactor } from '../sessions/two-factor-enrollment.decorator';
import { SessionCookies } from '../sessions/session-cookies';
import { client, sessionReply } from '../sessions/session.controller';
import { AnonymousCsrfGuard, CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import { SessionsService, StartedSession } from '../sessions/sessions.service';
import type { LiveSession } from '../sessions/users.repository';
import { InvitationsService } from './invitations.service';
import { AcceptWithPasswordDto, AcceptWithSignInDto, InvitationTokenDto, SwitchAccountDto } from './members.dto';

/**
 * The invitation link's page (accept it signed in, by signing in, or by choosing a password) and
 * switching the session between the user's accounts.
 */
@Controller('dashboard/api')
@UseInterceptors(NoStoreInterceptor)
export class DashboardInvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly members: MembersService,
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
  ) {}

  /** What the invitation is for (the token in a body, not the URL, so it stays out of access logs). */
  @Post('invitations/preview')
  @HttpCode(200)
  @UseGuards(AnonymousCsrfGuard)
  async preview(@Body() body: InvitationTokenDto): Promise<InvitationPreviewReply> {
    const p = await this.invitations.preview(body.token);
    return { account: { id: p.accountId, name: p.accountName }, email: p.email, role: p.role, invited_by: p.invitedBy, expires_at: p.expiresAt.toISOString(), has_user: p.hasUser };
  }

  /** A signed-in user of the invited address accepts; the session moves to the account joined. */
  @Post('invitations/accept')
  @HttpCode(200)
  @UseGuards(DashboardSessionGuard)
  @RequiresRole('viewer')
  async accept(@CurrentSession() session: LiveSession, @Body() body: InvitationTokenDto, @Req() request: FastifyRequest): Promise<SessionReply> {
    const accepted = await this.invitations.acceptSignedIn(session, body.token, client(request));
    await this.members.switchAccount(session.id, session.userId, accepted.accountId);
    return this.current(request);
  }

  @Post('invitations/accept-sign-in')
  @HttpCode(200)
  @UseGuards(AnonymousCsrfGuard)
  async acceptSignIn(@Body() body: AcceptWithSignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionReply> {
    const credentials = { email: body.email, password: body.password };
    return this.started(reply, await this.invitations.acceptWithSignIn(body.token, credentials, client(request), this.cookies.sessionToken(request)));
  }

  /** Creates the user of the invited address, whatever the sign-up policy (the link proves the address). */
  @Post('invitations/accept-sign-up')
  @HttpCode(201)
  @UseGuards(AnonymousCsrfGuard)
  async acceptSignUp(@Body() body: AcceptWithPasswordDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionReply> {
    return this.started(reply, await this.invitations.acceptWithNewUser(body.token, body.password, client(request)));
  }

  /** Switches the session to another account of the user (the account picker). */
  @Put('session/account')
  @UseGuards(DashboardSessionGuard)
  @RequiresRole('viewer')
  // An account that requires two-factor sign-in must not trap its members: they may switch away.
  @AllowedBeforeTwoFactor()
  async switchAccount(@CurrentSession() session: LiveSession, @Body() body: SwitchAccountDto, @Req() request: FastifyRequest): Promise<SessionReply> {
    await this.members.switchAccount(session.id, session.userId, body.account_id);
    return this.current(request);
  }

  private async current(request: FastifyRequest): Promise<SessionReply> {
    const session = await this.sessions.resolve(this.cookies.sessionToken(request));
    if (!session) throw new UnauthorizedError('You are not signed in, or your session has ended. Sign in to continue.');
    return sessionReply(session, this.members);
  }

  private started(reply: FastifyReply, started: StartedSession): Promise<SessionReply> {
    this.cookies.setSession(reply, started.token, started.maxAgeSeconds);
    return sessionReply(started.session, this.members);
  }
}
