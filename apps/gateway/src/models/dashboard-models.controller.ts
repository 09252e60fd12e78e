import { Controller, Get, UseGuards, UseInterceptors } from '@nestjs/common';
import type { ModelsReply } from '@gen/contracts';
import { GetCredits } from '../plans/get-credits.service';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { ListModels } from './list-models.service';

/** The catalogue as the account sees it (the Models page and the playground's picker). */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardModelsController {
  constructor(
    private readonly listModels: ListModels,
    private readonly credits: GetCredits,
  ) {}

  @Get('models')
  @RequiresRole('viewer')
  async models(@CurrentSession() session: LiveSession): Promise<ModelsReply> {
    const { accountId } = session;
    const [balance, models] = await Promise.all([this.credits.execute({ accountId }), this.listModels.execute({ accountId })]);
    return { plan: balance.plan, credits: { available: balance.available, held: balance.held }, data: models };
  }
}
