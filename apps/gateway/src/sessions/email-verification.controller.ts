import { Body, Controller, HttpCode, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { client } from './session.controller';
import { RequiresRole } from './requires-role.decorator';
import { AnonymousCsrfGuard, CurrentSession, DashboardSessionGuard } from './session.guard';
import type { LiveSession } from './users.repository';
import { VerifyEmailDto } from './email-verification.dto';
import { EmailVerificationService } from './email-verification.service';

/** The link of the sign-up verification mail, and "send it again". */
@Controller('dashboard/api/email-verification')
@UseInterceptors(NoStoreInterceptor)
export class EmailVerificationController {
  constructor(private readonly verification: EmailVerificationService) {}

  @Post('verify')
  @HttpCode(200)
  @UseGuards(AnonymousCsrfGuard)
  async verify(@Body() body: VerifyEmailDto, @Req() request: FastifyRequest): Promise<{ email_verified: true; email: string }> {
    const { email } = await this.verification.verify(body.token, client(request));
    return { email_verified: true, email };
  }

  @Post('resend')
  @HttpCode(202)
  @UseGuards(DashboardSessionGuard)
  @RequiresRole('viewer')
  async resend(@CurrentSession() session: LiveSession): Promise<{ message: string }> {
    await this.verification.resend(session);
    return { message: `A new verification link is on its way to ${session.email}.` };
  }
}
