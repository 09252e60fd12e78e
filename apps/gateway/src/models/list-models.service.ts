import { Injectable } from '@nestjs/common';
import { ModelInfo, modelForPlan } from '@gen/contracts';
import { AccountPlanService } from '../plans/account-plan.service';
import { ModelCatalogue } from './model-catalogue';
import { publicModel } from './public-model';

/** The catalogue as this account sees it: each model `available` or not, and why (its plan decides part of it). */
@Injectable()
export class ListModels {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly plans: AccountPlanService,
  ) {}

  async execute({ accountId }: { accountId: string }): Promise<ModelInfo[]> {
    const [copy, plan] = await Promise.all([this.catalogue.current(), this.plans.get(accountId)]);
    return [...copy.models.values()].map((m) => publicModel(modelForPlan(m, plan.plan)));
  }
}
