import { Controller, Get, UseGuards, UseInterceptors } from '@nestjs/common';
import type { ModelInfo, PlanName } from '@gen/contracts';
import { AccountPlanService } from '../plans/account-plan.service';
import { GenerationsService } from '../generations/submit/submit-generation';
import { NoStoreInterceptor } from '../dashboard/no-store.interceptor';
import { RequiresRole } from '../dashboard/sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../dashboard/sessions/session.guard';
import type { LiveSession } from '../dashboard/sessions/users.repository';

export interface ModelsReply {
  plan: PlanName;
  credits: { available: number; held: number };
  /** As GET /api/v1/models answers for this account: each model `available` or with its reason. */
  data: ModelInfo[];
}

/** The catalogue as the account sees it (the Models page and the playground's picker). */
@Controller('dashboard/api')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardModelsController {
  constructor(
    private readonly generations: GenerationsService,
    private readonly plans: AccountPlanService,
  ) {}

  @Get('models')
  @RequiresRole('viewer')
  async models(@CurrentSession() session: LiveSession): Promise<ModelsReply> {
    const [balance, models] = await Promise.all([
      this.plans.fresh(session.accountId),
      // listModels reads only the account (its plan); a session has no API key of its own.
      this.generations.listModels({ accountId: session.accountId, apiKeyId: '', scopes: [] }),
    ]);
    return { plan: balance.plan, credits: { available: balance.available, held: balance.held }, data: models };
  }
}
