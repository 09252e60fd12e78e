import { Injectable, Logger } from '@nestjs/common';
import type {
  BalanceReply,
  GenerationFinishedEvent,
  OpenBillingAccountRequest,
  PlanName,
  ReleaseCreditsRequest,
  ReserveCreditsReply,
  ReserveCreditsRequest,
} from '@gen/contracts';
import { InsufficientCreditsError, NotFoundError, SpendingCapReachedError, spendingPeriodEnd, ValidationError } from '@gen/errors';
import { PLAN_BOUNDS, PLAN_DEFAULTS } from '../accounts/plans';
import { CreditMetrics } from '../metrics/credit-metrics';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import { HoldsRepository } from './holds.repository';
import { HoldsWriter } from './holds.writer';
import { PaymentsService } from '../payments/payments.service';

@Injectable()
export class BillingService {
  private readonly logger = new Logger(BillingService.name);

  constructor(
    private readonly holds: HoldsWriter,
    private readonly holdRows: HoldsRepository,
    private readonly accounts: BillingAccountsRepository,
    private readonly metrics: CreditMetrics,
    private readonly payments: PaymentsService,
  ) {}

  async openAccount(request: OpenBillingAccountRequest): Promise<BalanceReply> {
    if (!Number.isSafeInteger(request.initialCredits) || request.initialCredits < 0) {
      throw new ValidationError('initialCredits must be a non-negative integer');
    }
    const limits = PLAN_DEFAULTS[request.plan];
    await this.accounts.openAccount(
      request.accountId,
      request.plan,
      { rpm: limits.requestsPerMinute, parallel: limits.parallelTasks },
      request.initialCredits,
    );
    return this.balance(request.accountId);
  }

  async reserve(request: ReserveCreditsRequest): Promise<ReserveCreditsReply> {
    // A restricted account (a refund of spent credits, a dispute: payments/) submits nothing: 402 and why.
    // Checked here, where every submit of either run mode reserves, before its hold joins a batch.
    try {
      await this.payments.assertNotRestricted(request.accountId);
    } catch (error) {
      this.metrics.hold('insufficient');
      throw error;
    }
    const outcome = await this.holds.reserve(
      request.accountId,
      request.jobId,
      request.amount,
      request.minimum,
      request.modelId ?? null,
      request.apiKeyId ?? null,
    );
    switch (outcome.kind) {
      case 'reserved':
        this.metrics.hold('reserved', request.amount);
        return { holdId: outcome.holdId, available: outcome.available };
      case 'already-reserved':
        return { holdId: outcome.holdId, available: outcome.available };
      case 'insufficient':
        this.metrics.hold('insufficient');
        throw new InsufficientCreditsError(Math.max(request.minimum, request.amount), outcome.available, request.modelId);
      case 'cap':
        this.metrics.hold('capped');
        throw new SpendingCapReachedError(outcome.period, outcome.cap, outcome.spent, request.amount, spendingPeriodEnd(outcome.period, new Date()));
      case 'no-account':
        this.metrics.hold('insufficient');
        throw new InsufficientCreditsError(Math.max(request.minimum, request.amount), 0, request.modelId);
    }
  }

  async release(request: ReleaseCreditsRequest): Promise<void> {
    const outcome = await this.holds.settle(request.jobId, 'release', request.reason);
    if (outcome.kind === 'settled') this.metrics.hold('released', outcome.amount);
  }

  /** generation.completed: the hold becomes the charge. Replays change nothing. */
  async onCompleted(event: GenerationFinishedEvent): Promise<void> {
    const outcome = await this.holds.settle(event.record.id, 'capture', null);
    if (outcome.kind === 'settled') this.metrics.hold('captured', outcome.amount);
    // Debug: every generation captures (the ledger row and the holds metric record it); one info line per request is the budget.
    if (outcome.kind === 'settled') this.logger.debug({ jobId: event.record.id, amount: outcome.amount }, 'credits captured');
  }

  /** generation.failed: the hold is released in full (the refund). Replays change nothing. */
  async onFailed(event: GenerationFinishedEvent): Promise<void> {
    const outcome = await this.holds.settle(event.record.id, 'release', 'generation failed');
    if (outcome.kind === 'settled') this.metrics.hold('released', outcome.amount);
    if (outcome.kind === 'settled') this.logger.log({ jobId: event.record.id, amount: outcome.amount }, 'credits refunded');
  }

  /** A job's credit hold (operator tools): amount and whether it is held, captured or released. */
  async holdForJob(jobId: string): Promise<{ amount: number; status: string; created_at: Date; settled_at: Date | null } | null> {
    const hold = await this.holdRows.findHold(jobId);
    return hold && { amount: hold.amount, status: hold.status, created_at: hold.createdAt, settled_at: hold.settledAt };
  }

  async balance(accountId: string): Promise<BalanceReply> {
    const account = await this.accounts.findAccount(accountId);
    if (!account) throw new NotFoundError('No billing account for this account.');
    return {
      accountId,
      plan: account.plan,
      available: account.available,
      held: account.held,
      limits: { requests_per_minute: account.requestsPerMinute, parallel_tasks: account.parallelTasks },
    };
  }

  async adjust(accountId: string, delta: number, note: string): Promise<number> {
    if (!Number.isSafeInteger(delta) || delta === 0) throw new ValidationError('delta must be a non-zero integer');
    const available = await this.accounts.adjust(accountId, delta, note);
    if (available === null) {
      throw new ValidationError('No such account, or the adjustment would make the available balance negative.');
    }
    return available;
  }

  async setPlan(accountId: string, plan: PlanName, overrides: { rpm?: number; parallel?: number }): Promise<BalanceReply> {
    const { rpm, parallel } = planLimits(plan, overrides);
    if (!(await this.accounts.setPlan(accountId, plan, rpm, parallel))) throw new NotFoundError('No such account.');
    return this.balance(accountId);
  }
}

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
