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
import { PLAN_DEFAULTS, planLimits } from '../accounts/plans';
import { CreditMetrics } from '../metrics/credit-metrics';
import { BillingAccountsRepository } from '../accounts/billing-accounts.repository';
import { HoldsRepository } from './holds.repository';
import { HoldsWriter } from './holds.writer';
import { RestrictionsReader } from '../payments/restrictions.reader';

@Injectable()
export class BillingService {
  private readonly logger = new Logger(BillingService.name);

  constructor(
    private readonly holds: HoldsWriter,
    private readonly holdRows: HoldsRepository,
    private readonly accounts: BillingAccountsRepository,
    private readonly metrics: CreditMetrics,
    private readonly restrictions: RestrictionsReader,
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
      await this.restrictions.assertNotRestricted(request.accountId, request.lane);
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
      request.lane,
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
