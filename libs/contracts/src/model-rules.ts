import type { GenerationType, ModelInfo, PlanName } from './shared/generation';

/**
 * The rules about using a model, decided here and only here: the gateway applies them before it
 * holds credits, the generation service again at submit against its own (fresher) catalogue.
 */

const PLAN_RANK: Record<PlanName, number> = { free: 0, lite: 1, pro: 2, enterprise: 3 };

/** Whether an account on `plan` may use a model that needs `minPlan`. */
export function planAllows(plan: PlanName, minPlan: PlanName): boolean {
  return PLAN_RANK[plan] >= PLAN_RANK[minPlan];
}

/** Why a submit may not use the model, as an error code of the envelope and its message. */
export interface ModelUseRefusal {
  code: 'validation_error' | 'forbidden';
  message: string;
}

/**
 * Checks a submit against the catalogue entry, in the order a client fixes them: the model exists,
 * makes the requested type, is available (enabled, its engine can run), and the plan allows it.
 */
export function refuseModelUse(
  model: ModelInfo | undefined,
  request: { model: string; type: GenerationType; plan: PlanName },
): ModelUseRefusal | null {
  if (!model) return { code: 'validation_error', message: `model: unknown model "${request.model}". See GET /api/v1/models.` };
  if (model.type !== request.type) {
    return { code: 'validation_error', message: `type: model "${model.id}" makes ${model.type}, not ${request.type}.` };
  }
  if (!model.available) {
    return {
      code: 'validation_error',
      message: `model: "${model.id}" is not available${model.unavailable_reason ? `: ${model.unavailable_reason}` : '.'}`,
    };
  }
  if (!planAllows(request.plan, model.min_plan)) {
    return { code: 'forbidden', message: `Model "${model.id}" needs the ${model.min_plan} plan or above; this account is on ${request.plan}.` };
  }
  return null;
}

/** The catalogue entry as one account sees it: unavailable also when its plan does not allow it. */
export function modelForPlan(model: ModelInfo, plan: PlanName): ModelInfo {
  if (!model.available || planAllows(plan, model.min_plan)) return model;
  return { ...model, available: false, unavailable_reason: `Needs the ${model.min_plan} plan or above; this account is on ${plan}.` };
}
