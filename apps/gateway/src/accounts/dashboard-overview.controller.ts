import { Controller, Get, UseGuards, UseInterceptors } from '@nestjs/common';
import type { OverviewReply } from '@gen/contracts';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { GetAccountOverview } from './get-account-overview.service';

/** The dashboard's first page: the account at a glance. */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardOverviewController {
  constructor(private readonly overview: GetAccountOverview) {}

  @Get('overview')
  @RequiresRole('viewer')
  get(@CurrentSession() session: LiveSession): Promise<OverviewReply> {
    return this.overview.execute({ accountId: session.accountId, accountName: session.accountName, email: session.email });
  }
}
