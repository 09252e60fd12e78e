import { Injectable } from '@nestjs/common';
import type { KeyCapView, ListKeyCapsRequest, SetKeyCapsRequest } from '@gen/contracts';
import { NotFoundError, spendingPeriodEnd, ValidationError } from '@gen/errors';
import { KeyCapChange, KeyCapRow, KeyCapsRepository } from './key-caps.repository';

/** The largest cap PostgreSQL's integer column holds. */
export const MAX_KEY_CAP = 2_147_483_647;

/**
 * Checks one cap: a whole number of credits from 1 to MAX_KEY_CAP, or null (no cap). 0 is refused
 * rather than read as "no spending": a key that must not spend is revoked, or given only `read`.
 */
export function checkCap(field: string, value: unknown): number | null | undefined {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_KEY_CAP) {
    throw new ValidationError(`${field}: must be a whole number of credits from 1 to ${MAX_KEY_CAP}, or null for no cap.`);
  }
  return value;
}

export function toKeyCapView(row: KeyCapRow, now: Date): KeyCapView {
  return {
    key_id: row.keyId,
    per_day: row.perDay,
    per_month: row.perMonth,
    spent_today: row.spentToday,
    spent_this_month: row.spentThisMonth,
    day_resets_at: spendingPeriodEnd('day', now).toISOString(),
    month_resets_at: spendingPeriodEnd('month', now).toISOString(),
  };
}

/** Spending caps per API key: read and set. The reserve enforces them (HoldsWriter.reserve). */
@Injectable()
export class KeyCapsService {
  constructor(private readonly repository: KeyCapsRepository) {}

  async list(request: ListKeyCapsRequest): Promise<KeyCapView[]> {
    const now = new Date();
    return (await this.repository.list(request.accountId, request.keyIds ?? null)).map((row) => toKeyCapView(row, now));
  }

  async set(request: SetKeyCapsRequest): Promise<KeyCapView> {
    const change: KeyCapChange = { perDay: checkCap('per_day', request.perDay), perMonth: checkCap('per_month', request.perMonth) };
    if (change.perDay === undefined && change.perMonth === undefined) {
      throw new ValidationError('Nothing to change: give per_day, per_month or both (null removes a cap).');
    }
    const row = await this.repository.set(request.accountId, request.keyId, change);
    if (!row) throw new NotFoundError('No such key.');
    return toKeyCapView(row, new Date());
  }
}
