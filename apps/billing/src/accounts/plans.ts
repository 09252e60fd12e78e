import type { PlanName } from '@gen/contracts';
import { ValidationError } from '@gen/errors';

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

/**
 * A plan's limits: its defaults, or the operator's overrides within its bounds. The one check of
 * `plans set` and of a plan that a Stripe subscription sets (payments/).
 */
export function planLimits(plan: PlanName, overrides: { rpm?: number; parallel?: number }): { rpm: number; parallel: number } {
  const bounds = PLAN_BOUNDS[plan];
  const rpm = overrides.rpm ?? PLAN_DEFAULTS[plan].requestsPerMinute;
  const parallel = overrides.parallel ?? PLAN_DEFAULTS[plan].parallelTasks;
  const fixed = bounds.rpm[0] === bounds.rpm[1] && bounds.parallel[0] === bounds.parallel[1];
  if (fixed && (rpm !== bounds.rpm[0] || parallel !== bounds.parallel[0])) {
    // "must be between 30 and 30" says nothing useful: say the limits are fixed, and where they are not.
    const adjustable = (Object.keys(PLAN_BOUNDS) as PlanName[]).filter((p) => PLAN_BOUNDS[p].rpm[0] !== PLAN_BOUNDS[p].rpm[1]);
    throw new ValidationError(
      `The ${plan} plan has fixed limits (${bounds.rpm[0]} requests per minute, ${bounds.parallel[0]} parallel ` +
          `task${bounds.parallel[0] === 1 ? '' : 's'}); only the ${adjustable.join(' and ')} plans take other limits.`,
    );
  }
  if (rpm < bounds.rpm[0] || rpm > bounds.rpm[1]) {
    throw new ValidationError(`requests per minute for ${plan} must be between ${bounds.rpm[0]} and ${bounds.rpm[1]}`);
  }
  if (parallel < bounds.parallel[0] || parallel > bounds.parallel[1]) {
    throw new ValidationError(
      `parallel tasks for ${plan} must be between ${bounds.parallel[0]} and ${bounds.parallel[1]}`,
    );
  }
  return { rpm, parallel };
}
