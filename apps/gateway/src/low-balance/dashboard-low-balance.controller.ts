import { Body, Controller, Get, Put, UseGuards, UseInterceptors } from '@nestjs/common';
import { IsInt, Max, Min, ValidateIf } from 'class-validator';
import { LowBalanceReply, LowBalanceView, MAX_LOW_BALANCE_THRESHOLD } from '@gen/contracts';
import type { AuditActor } from '../audit-log/audit-actions';
import { CurrentActor } from '../sessions/audit-actor.decorator';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { LowBalanceAlertsService } from './low-balance-alerts.service';

const MESSAGE = `threshold: a whole number of credits from 0 to ${MAX_LOW_BALANCE_THRESHOLD} (0 or null turns alerts off).`;

/** Body of PUT /dashboard/api/account/low-balance. */
export class LowBalanceDto {
  @ValidateIf((body: LowBalanceDto) => body.threshold !== null)
  @IsInt({ message: MESSAGE })
  @Min(0, { message: MESSAGE })
  @Max(MAX_LOW_BALANCE_THRESHOLD, { message: MESSAGE })
  threshold!: number | null;
}

/** Settings, Account: the low-balance alert threshold and its deliveries; owners and admins. */
@Controller('dashboard/api/account/low-balance')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardLowBalanceController {
  constructor(private readonly alerts: LowBalanceAlertsService) {}

  @Get()
  @RequiresRole('admin')
  get(@CurrentSession() session: LiveSession): Promise<LowBalanceReply> {
    return this.alerts.view(session.accountId);
  }

  @Put()
  @RequiresRole('admin')
  set(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: LowBalanceDto): Promise<LowBalanceView> {
    return this.alerts.set(session.accountId, body.threshold, actor);
  }
}
