import type { PlanName } from '@gen/contracts';

export interface PlanLimits {
  requestsPerMinute: number;
  parallelTasks: number;
}

/**
 * Plan defaults (spec, "Limits"). Pro is a range: 60-200 rpm and 3-25 slots, set per account by the
 * operator. Enterprise has no upper bound; the operator sets its limits per account.
 */
export const PLAN_DEFAULTS: Record<PlanName, PlanLimits> = {
  free: { requestsPerMinute: 10, parallelTasks: 1 },
  lite: { requestsPerMinute: 30, parallelTasks: 2 },
  pro: { requestsPerMinute: 60, parallelTasks: 3 },
  enterprise: { requestsPerMinute: 1000, parallelTasks: 50 },
};

export const PLAN_BOUNDS: Record<PlanName, { rpm: [number, number]; parallel: [number, number] }> = {
  free: { rpm: [10, 10], parallel: [1, 1] },
  lite: { rpm: [30, 30], parallel: [2, 2] },
  pro: { rpm: [60, 200], parallel: [3, 25] },
  enterprise: { rpm: [1, Number.MAX_SAFE_INTEGER], parallel: [1, Number.MAX_SAFE_INTEGER] },
};
