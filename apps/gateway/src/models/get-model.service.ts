import { Injectable } from '@nestjs/common';
import { ModelInfo, modelForPlan } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { AccountPlanService } from '../plans/account-plan.service';
import { ModelCatalogue } from './model-catalogue';
import { publicModel } from './public-model';

/** One model as this account sees it (as the list shows it); `404` for an unknown id. */
@Injectable()
export class GetModel {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly plans: AccountPlanService,
  ) {}

  async execute({ accountId, modelId }: { accountId: string; modelId: string }): Promise<ModelInfo> {
    const [copy, plan] = await Promise.all([this.catalogue.current(), this.plans.get(accountId)]);
    const model = copy.models.get(modelId);
    if (!model) throw new NotFoundError(`Unknown model "${modelId.slice(0, 100)}". See GET /api/v1/models.`);
    return publicModel(modelForPlan(model, plan.plan));
  }
}
