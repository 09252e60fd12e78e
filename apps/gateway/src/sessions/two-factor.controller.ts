import { Body, Controller, Get, HttpCode, Post, Put, Req, UseGuards, UseInterceptors } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { TwoFactorStatus } from '@gen/contracts';
import type { AuditActor } from '../audit-log/audit-actions';
import { CurrentActor } from './audit-actor.decorator';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from './requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from './session.guard';
import type { LiveSession } from './users.repository';
import { client } from './session.controller';
import { TwoFactorChangeDto, TwoFactorCodeDto, TwoFactorRequirementDto } from './two-factor.dto';
import { AllowedBeforeTwoFactor } from './two-factor-enrollment.decorator';
import { TwoFactorService } from './two-factor.service';

/** Settings, then Account: two-factor sign-in for the signed-in user (any role: it is their own), and the account's requirement (owners). */
@Controller('dashboard/api')
@RequiresRole('viewer')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class TwoFactorController {
  constructor(private readonly twoFactor: TwoFactorService) {}

  @Get('two-factor')
  @AllowedBeforeTwoFactor()
  status(@CurrentSession() session: LiveSession): Promise<TwoFactorStatus> {
    return this.twoFactor.status(session);
  }

  @Post('two-factor/enrollment')
  @HttpCode(201)
  @AllowedBeforeTwoFactor()
  begin(@CurrentSession() session: LiveSession): Promise<{ secret: string; otpauth_uri: string }> {
    return this.twoFactor.begin(session);
  }

  @Post('two-factor/enrollment/confirm')
  @HttpCode(200)
  @AllowedBeforeTwoFactor()
  confirm(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Body() body: TwoFactorChangeDto,
    @Req() request: FastifyRequest,
  ): Promise<{ recovery_codes: string[] }> {
    return this.twoFactor.confirm(session, body, actor, client(request));
  }

  @Post('two-factor/disable')
  @HttpCode(204)
  disable(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: TwoFactorChangeDto, @Req() request: FastifyRequest): Promise<void> {
    return this.twoFactor.disable(session, body, actor, client(request));
  }

  @Post('two-factor/recovery-codes')
  @HttpCode(200)
  renewRecoveryCodes(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: TwoFactorCodeDto): Promise<{ recovery_codes: string[] }> {
    return this.twoFactor.renewRecoveryCodes(session, body.code, actor);
  }

  @Put('account/two-factor-requirement')
  @RequiresRole('owner')
  setRequirement(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: TwoFactorRequirementDto): Promise<{ required: boolean }> {
    return this.twoFactor.setRequirement(session, body.required, actor);
  }
}
