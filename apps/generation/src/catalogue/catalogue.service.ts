import { Inject, Injectable } from '@nestjs/common';
import type { ModelInfo, PlanName } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { ModelDefinition } from './catalogue';

export const CATALOGUE_MODELS = Symbol('CATALOGUE_MODELS');

const PLAN_RANK: Record<PlanName, number> = { free: 0, lite: 1, pro: 2, enterprise: 3 };

@Injectable()
export class CatalogueService {
  private readonly byId: Map<string, ModelDefinition>;

  constructor(@Inject(CATALOGUE_MODELS) models: readonly ModelDefinition[]) {
    this.byId = new Map(models.map((m) => [m.id, m]));
  }

  list(): ModelInfo[] {
    return [...this.byId.values()].map(toModelInfo);
  }

  get(modelId: string): ModelDefinition {
    const model = this.byId.get(modelId);
    if (!model) throw new NotFoundError(`Unknown model "${modelId}".`);
    return model;
  }

  find(modelId: string): ModelDefinition | undefined {
    return this.byId.get(modelId);
  }

  static allows(plan: PlanName, model: Pick<ModelDefinition, 'minPlan'>): boolean {
    return PLAN_RANK[plan] >= PLAN_RANK[model.minPlan];
  }
}

export function toModelInfo(m: ModelDefinition): ModelInfo {
  return {
    id: m.id,
    name: m.name,
    type: m.type,
    credits: m.credits,
    minimum_credits: m.minimumCredits,
    synchronous: m.synchronous,
    min_plan: m.minPlan,
  };
}
