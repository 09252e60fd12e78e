import { Body, Controller, HttpCode, Post, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { client } from './session.controller';
import { AnonymousCsrfGuard } from './session.guard';
import { PasswordResetCompleteDto, PasswordResetRequestDto } from './password-reset.dto';
import { PasswordResetService } from './password-reset.service';

/** "Forgot your password?": ask for a reset link by mail, then set the new password from it. */
@Controller('dashboard/api/password-reset')
@UseInterceptors(NoStoreInterceptor)
@UseGuards(AnonymousCsrfGuard)
export class PasswordResetController {
  constructor(private readonly resets: PasswordResetService) {}

  /** 202 with the same message whether or not the address has a user. */
  @Post()
  @HttpCode(202)
  async request(@Body() body: PasswordResetRequestDto): Promise<{ message: string }> {
    const { message } = await this.resets.request(body.email);
    return { message };
  }

  @Post('complete')
  @HttpCode(200)
  async complete(@Body() body: PasswordResetCompleteDto, @Req() request: FastifyRequest): Promise<{ ended_sessions: number }> {
    const { endedSessions } = await this.resets.complete(body.token, body.new_password, client(request));
    return { ended_sessions: endedSessions };
  }
}
