import { randomUUID } from 'node:crypto';
import type { AccountBillingNoticeEvent, BillingNoticeKind } from '@gen/contracts';
import { sqlRows } from '@gen/persistence';
import type { EntityManager } from 'typeorm';

/**
 * What the payments tables hold (packs, purchases, Stripe events, restrictions) as the services use
 * it, and the two writes every payment transaction makes (top-ups, subscriptions, refunds): the
 * Stripe event's row and the owners' notice.
 */

export interface CreditPack {
  id: string;
  name: string;
  credits: number;
  unitAmount: number;
  currency: string;
  active: boolean;
}

export interface Purchase {
  checkoutSessionId: string;
  accountId: string;
  packId: string;
  credits: number;
  amount: number;
  currency: string;
  paymentIntentId: string | null;
  chargeId: string | null;
  receiptUrl: string | null;
  refundedCredits: number;
  createdAt: Date;
}

/** The Stripe event being handled: stored by id with whatever it changes. */
export interface StripeEventRecord {
  eventId: string;
  type: string;
  created: Date;
}

export type GrantOutcome = 'applied' | 'duplicate' | 'no-account';

/** A notice for the account's owners (mail and audit log, by the gateway), written to the outbox with the change. */
export interface BillingNotice {
  kind: BillingNoticeKind;
  subject: string;
  message: string;
  details: Record<string, unknown>;
}

export interface Restriction {
  reason: string;
  message: string;
  since: Date;
}

/** What a refund took back: `shortfall` credits had been spent (the account is then restricted). */
export type RefundOutcome =
  | { kind: 'duplicate' | 'not-a-purchase' | 'refunded-before' }
  | { kind: 'applied'; accountId: string; purchase: Purchase; taken: number; shortfall: number };

export type DisputeOutcome = { kind: 'duplicate' | 'not-a-purchase' } | { kind: 'applied'; accountId: string; purchase: Purchase };

/** The notice as an outbox row (AccountBillingNoticeEvent; its id is the event id), in the caller's transaction. */
export async function writeNotice(tx: EntityManager, accountId: string, notice: BillingNotice): Promise<void> {
  const id = randomUUID();
  const payload: AccountBillingNoticeEvent = { eventId: id, event: 'account.billing_notice', accountId, ...notice };
  await sqlRows(tx, `INSERT INTO outbox (id, pattern, payload) VALUES ($1, 'account.billing_notice', $2::jsonb)`, [id, JSON.stringify(payload)]);
}

/** The event's row in its handling transaction; false when another delivery stored it first (it waits for that one's commit). */
export async function claimEvent(tx: EntityManager, event: StripeEventRecord): Promise<boolean> {
  const stored = await sqlRows<unknown>(tx,
    `INSERT INTO stripe_events (event_id, type, stripe_created, outcome) VALUES ($1, $2, $3, 'applied') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
    [event.eventId, event.type, event.created],
  );
  return stored.length > 0;
}
