import { Injectable } from '@nestjs/common';
import { ModelInfo, modelForPlan } from '@gen/contracts';
import { ModelCatalogue } from '../models/model-catalogue';
import { AccountPlanService } from '../plans/account-plan.service';
import { OpenAiRefusal } from './openai-refusal.error';

/** OpenAI's model object. */
export interface OpenAiModel {
  id: string;
  object: 'model';
  /** The catalogue keeps no creation time a customer could use: 0 (docs/guide/openai-compatible.md). */
  created: number;
  owned_by: string;
}

export interface OpenAiModelList {
  object: 'list';
  data: OpenAiModel[];
}

const toOpenAi = (model: ModelInfo): OpenAiModel => ({ id: model.id, object: 'model', created: 0, owned_by: model.provider });

/** GET /openai/v1/models: the models served there (with an `openai` mapping) that this account may use now. */
@Injectable()
export class ListOpenAiModels {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly plans: AccountPlanService,
  ) {}

  async execute({ accountId }: { accountId: string }): Promise<OpenAiModelList> {
    return { object: 'list', data: (await this.served(accountId)).map(toOpenAi) };
  }

  async one({ accountId, id }: { accountId: string; id: string }): Promise<OpenAiModel> {
    const model = (await this.served(accountId)).find((m) => m.id === id);
    if (!model) throw new OpenAiRefusal('model_not_found', `The model "${id}" does not exist or is not served by the OpenAI-compatible API.`, 'model');
    return toOpenAi(model);
  }

  private async served(accountId: string): Promise<ModelInfo[]> {
    const [copy, plan] = await Promise.all([this.catalogue.current(), this.plans.get(accountId)]);
    return [...copy.models.values()].map((m) => modelForPlan(m, plan.plan)).filter((m) => m.openai !== undefined && m.available);
  }
}
