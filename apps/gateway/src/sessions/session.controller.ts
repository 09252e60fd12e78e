import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { SessionReply, TwoFactorChallengeReply } from '@gen/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MembersService } from '../memberships/members.service';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { AllowedBeforeTwoFactor } from './two-factor-enrollment.decorator';
import { RequiresRole } from './requires-role.decorator';
import { CredentialsDto } from './credentials.dto';
import { SessionCookies } from './session-cookies';
import { AnonymousCsrfGuard, CurrentSession, DashboardSessionGuard } from './session.guard';
import { newToken, SessionsService, StartedSession } from './sessions.service';
import type { LiveSession } from './users.repository';

/** The reply for a signed-in session, with the accounts its user may switch to. */
export async function sessionReply(session: LiveSession, members: MembersService): Promise<SessionReply> {
  const accounts = await members.accountsOf(session.userId);
  return {
    signed_in: true,
    csrf_token: session.csrfToken,
    user: {
      id: session.userId,
      email: session.email,
      email_verified: session.emailVerified,
      two_factor: { enabled: session.twoFactorEnabled, required: session.accountRequiresTwoFactor },
    },
    account: { id: session.accountId, name: session.accountName, role: session.role },
    accounts: accounts.map((a) => ({ id: a.accountId, name: a.name, role: a.role })),
  };
}

/** The client address and user agent recorded with a session. */
export function client(request: FastifyRequest) {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : null };
}

/** Sign-up, sign-in, sign-out, and "who am I" for the dashboard's pages. */
@Controller('dashboard/api')
@UseInterceptors(NoStoreInterceptor)
export class SessionController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly members: MembersService,
  ) {}

  /** Always 200: the signed-in user, or an anonymous CSRF token for the sign-in and sign-up forms. */
  @Get('session')
  async session(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionReply> {
    const session = await this.sessions.resolve(this.cookies.sessionToken(request));
    if (session) return sessionReply(session, this.members);
    let token = this.cookies.anonymousCsrfToken(request);
    if (!token) {
      token = newToken();
      this.cookies.setAnonymousCsrf(reply, token);
    }
    return { signed_in: false, csrf_token: token, sign_up: this.sessions.signUpTerms() };
  }

  @Post('sign-up')
  @HttpCode(201)
  @UseGuards(AnonymousCsrfGuard)
  async signUp(@Body() body: CredentialsDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionReply> {
    return this.started(reply, await this.sessions.signUp(body, client(request)));
  }

  /** The session, or, for a user with two-factor sign-in, `two_factor_required` and the challenge for POST sign-in/two-factor. */
  @Post('sign-in')
  @HttpCode(200)
  @UseGuards(AnonymousCsrfGuard)
  async signIn(
    @Body() body: CredentialsDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SessionReply | TwoFactorChallengeReply> {
    const result = await this.sessions.signIn(body, client(request), this.cookies.sessionToken(request));
    if ('challenge' in result) return { signed_in: false, two_factor_required: true, challenge: result.challenge, expires_in_seconds: result.expiresInSeconds };
    return this.started(reply, result);
  }

  @Post('sign-out')
  @HttpCode(204)
  @UseGuards(DashboardSessionGuard)
  @AllowedBeforeTwoFactor()
  @RequiresRole('viewer')
  async signOut(@CurrentSession() _session: LiveSession, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.sessions.signOut(this.cookies.sessionToken(request));
    this.cookies.clearSession(reply);
  }

  private started(reply: FastifyReply, started: StartedSession): Promise<SessionReply> {
    this.cookies.setSession(reply, started.token, started.maxAgeSeconds);
    return sessionReply(started.session, this.members);
  }
}
