import { Injectable } from '@nestjs/common';
import { GetLowBalanceRequest, isUuid, LowBalanceView, MAX_LOW_BALANCE_THRESHOLD, SetLowBalanceRequest } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';
import { LowBalanceRepository, LowBalanceRow } from './low-balance.repository';

/**
 * Checks a threshold: a whole number of credits from 0 to MAX_LOW_BALANCE_THRESHOLD, or null. 0 and
 * null both turn alerts off (stored as null).
 */
export function checkThreshold(value: unknown): number | null {
  if (value === null || value === 0) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_LOW_BALANCE_THRESHOLD) {
    throw new ValidationError(`threshold: must be a whole number of credits from 0 to ${MAX_LOW_BALANCE_THRESHOLD} (0 or null turns alerts off).`);
  }
  return value;
}

function checkAccount(accountId: unknown): string {
  if (!isUuid(accountId)) throw new NotFoundError('No billing account for this account.');
  return accountId;
}

function toView(row: LowBalanceRow): LowBalanceView {
  return { threshold: row.threshold, available: row.available, below: row.alerted };
}

/** An account's low-balance threshold: read and set. The trigger on `accounts` does the alerting. */
@Injectable()
export class LowBalanceService {
  constructor(private readonly repository: LowBalanceRepository) {}

  async get(request: GetLowBalanceRequest): Promise<LowBalanceView> {
    const row = await this.repository.find(checkAccount(request.accountId));
    if (!row) throw new NotFoundError('No billing account for this account.');
    return toView(row);
  }

  async set(request: SetLowBalanceRequest): Promise<LowBalanceView> {
    const threshold = checkThreshold(request.threshold);
    const row = await this.repository.set(checkAccount(request.accountId), threshold);
    if (!row) throw new NotFoundError('No billing account for this account.');
    return toView(row);
  }
}
