import type { AccountLowBalanceEvent } from '@gen/contracts';

/**
 * The body of an `account.low_balance` webhook (docs/guide/webhooks.md, "Account events"), in this field
 * order: `id` is the event's id, the same in every delivery of it (one per destination URL), so a
 * receiver drops duplicates by it.
 */
export interface AccountLowBalanceBody {
  event: 'account.low_balance';
  id: string;
  account_id: string;
  threshold: number;
  available: number;
  created_at: string;
}

export function lowBalanceBody(event: AccountLowBalanceEvent): Buffer {
  const body: AccountLowBalanceBody = {
    event: 'account.low_balance',
    id: event.eventId,
    account_id: event.accountId,
    threshold: event.threshold,
    available: event.available,
    created_at: new Date(event.crossedAt).toISOString(),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
