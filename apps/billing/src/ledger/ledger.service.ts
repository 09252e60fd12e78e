import { isUuid } from '@gen/contracts';
import { Injectable } from '@nestjs/common';
import type { LedgerEntryView, LedgerReply, LedgerRequest, UsageDay, UsageModel, UsageReply, UsageRequest } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { LedgerRepository, LedgerRow } from './ledger.repository';

export const MAX_LEDGER_PAGE = 500;
export const MAX_USAGE_DAYS = 366;

/** `next_cursor`: the id of the page's last row, opaque to clients. */
export function encodeLedgerCursor(id: string): string {
  return Buffer.from(`ledger:${id}`, 'utf8').toString('base64url');
}

export function decodeLedgerCursor(cursor: string): string {
  const match = /^ledger:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError('cursor: not a cursor returned by this endpoint.');
  return match[1];
}

export function toLedgerEntryView(row: LedgerRow): LedgerEntryView {
  return {
    id: row.id,
    kind: row.kind,
    amount: row.availableDelta,
    held_change: row.heldDelta,
    balance_after: row.balanceAfter,
    generation_id: row.jobId,
    model: row.modelId,
    created_at: row.createdAt.toISOString(),
    note: row.note,
  };
}

/** Every date from `from` to `to` (YYYY-MM-DD, UTC), both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

function checkAccount(accountId: unknown): void {
  if (!isUuid(accountId)) throw new ValidationError('accountId must be a UUID');
}

/** What an account's credits did: the ledger a page at a time, and spending per day and model. */
@Injectable()
export class LedgerService {
  constructor(private readonly repository: LedgerRepository) {}

  async page(request: LedgerRequest): Promise<LedgerReply> {
    checkAccount(request.accountId);
    const limit = request.limit;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LEDGER_PAGE) {
      throw new ValidationError(`limit must be an integer between 1 and ${MAX_LEDGER_PAGE}`);
    }
    const before = request.cursor ? decodeLedgerCursor(request.cursor) : null;
    const rows = await this.repository.ledgerPage(request.accountId, limit + 1, before);
    const page = rows.slice(0, limit);
    return {
      data: page.map(toLedgerEntryView),
      next_cursor: rows.length > limit ? encodeLedgerCursor(page[page.length - 1].id) : null,
    };
  }

  /** Every day of the period is listed (zero when nothing was spent), oldest first. */
  async usage(request: UsageRequest): Promise<UsageReply> {
    checkAccount(request.accountId);
    if (!Number.isInteger(request.days) || request.days < 1 || request.days > MAX_USAGE_DAYS) {
      throw new ValidationError(`days must be an integer between 1 and ${MAX_USAGE_DAYS}`);
    }
    const { from, to, rows } = await this.repository.usage(request.accountId, request.days);
    const days = new Map<string, UsageDay>(daysBetween(from, to).map((date) => [date, { date, credits: 0, generations: 0, by_model: {} }]));
    const models: UsageModel[] = [];
    let total = { credits: 0, generations: 0, refunds: 0 };
    for (const row of rows) {
      if (row.day !== null && row.model !== null) {
        if (row.credits > 0) {
          const day = days.get(row.day);
          if (day) day.by_model[row.model] = row.credits;
        }
      } else if (row.day !== null) {
        const day = days.get(row.day);
        if (day) Object.assign(day, { credits: row.credits, generations: row.generations });
      } else if (row.model !== null) {
        if (row.generations > 0) models.push({ model: row.model, credits: row.credits, generations: row.generations });
      } else {
        total = { credits: row.credits, generations: row.generations, refunds: row.refunds };
      }
    }
    models.sort((a, b) => b.credits - a.credits || a.model.localeCompare(b.model));
    return { from, to, days: [...days.values()], models, total };
  }
}
