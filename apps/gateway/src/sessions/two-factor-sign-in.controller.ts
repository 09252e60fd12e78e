import { Body, Controller, HttpCode, Post, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { SessionReply } from '@gen/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { MembersService } from '../memberships/members.service';
import { client, sessionReply } from './session.controller';
import { SessionCookies } from './session-cookies';
import { AnonymousCsrfGuard } from './session.guard';
import { TwoFactorSignInDto } from './two-factor.dto';
import { TwoFactorSignInService } from './two-factor-sign-in.service';

/** Sign-in's second step: the challenge from the password step and a TOTP or recovery code; sets the session cookie. */
@Controller('dashboard/api/sign-in/two-factor')
@UseInterceptors(NoStoreInterceptor)
export class TwoFactorSignInController {
  constructor(
    private readonly signIn: TwoFactorSignInService,
    private readonly cookies: SessionCookies,
    private readonly members: MembersService,
  ) {}

  @Post()
  @HttpCode(200)
  @UseGuards(AnonymousCsrfGuard)
  async complete(@Body() body: TwoFactorSignInDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<SessionReply> {
    const started = await this.signIn.complete(body.challenge, body.code, client(request), this.cookies.sessionToken(request));
    this.cookies.setSession(reply, started.token, started.maxAgeSeconds);
    return sessionReply(started.session, this.members);
  }
}
