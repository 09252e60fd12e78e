import { Injectable } from '@nestjs/common';
import type { PlanName } from '@gen/contracts';
import { AccountPlanService } from './account-plan.service';

/** GET /api/v1/credits: the plan, its limits and the credits as they are now. */
export interface CreditsReply {
  plan: PlanName;
  available: number;
  held: number;
  limits: { requests_per_minute: number; parallel_tasks: number };
}

/** The account's plan, limits and credits, fresh from billing (never the short-lived cached copy). */
@Injectable()
export class GetCredits {
  constructor(private readonly plans: AccountPlanService) {}

  async execute({ accountId }: { accountId: string }): Promise<CreditsReply> {
    const balance = await this.plans.fresh(accountId);
    return { plan: balance.plan, available: balance.available, held: balance.held, limits: balance.limits };
  }
}
