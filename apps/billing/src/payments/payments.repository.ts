import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readRows, sqlRows } from '@gen/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { BILLING_DB } from '../config/billing.tokens';
import { LedgerEntryEntity } from '../accounts/ledger-entry.entity';
import { BillingNotice, claimEvent, CreditPack, DisputeOutcome, GrantOutcome, Purchase, RefundOutcome, Restriction, StripeEventRecord, writeNotice } from './payment-records';

const FIND_RESTRICTION = new PreparedStatement<{ reason: string; message: string; created_at: Date }>(
  'billing.find_restriction',
  `SELECT reason, message, created_at FROM account_restrictions WHERE account_id = $1`,
  { idempotent: true },
);

// The reserves' check, for a batch of accounts at once (RestrictionsReader): a read, safe under anything.
const FIND_RESTRICTIONS = new PreparedStatement<{ account_id: string; reason: string; message: string; created_at: Date }>(
  'billing.find_restrictions',
  `SELECT account_id, reason, message, created_at FROM account_restrictions WHERE account_id = ANY($1::uuid[])`,
  { idempotent: true },
);

async function eventOutcome(tx: EntityManager, eventId: string, outcome: string): Promise<void> {
  await sqlRows(tx, `UPDATE stripe_events SET outcome = $2 WHERE event_id = $1`, [eventId, outcome]);
}

/** The purchase paid by this PaymentIntent or charge, locked for the transaction. */
async function lockPurchase(tx: EntityManager, paymentIntentId: string | null, chargeId: string | null): Promise<Purchase | null> {
  const [row] = await sqlRows<PurchaseRow>(tx,
    `SELECT * FROM purchases WHERE ($1::text IS NOT NULL AND payment_intent_id = $1) OR ($2::text IS NOT NULL AND charge_id = $2) ORDER BY created_at LIMIT 1 FOR UPDATE`,
    [paymentIntentId, chargeId],
  );
  return row ? toPurchase(row) : null;
}

interface PackRow {
  id: string;
  name: string;
  credits: number;
  unit_amount: number;
  currency: string;
  active: boolean;
}

interface PurchaseRow {
  checkout_session_id: string;
  account_id: string;
  pack_id: string;
  credits: number;
  amount: number;
  currency: string;
  payment_intent_id: string | null;
  charge_id: string | null;
  receipt_url: string | null;
  refunded_credits: number;
  created_at: Date;
}

const toPack = (r: PackRow): CreditPack => ({ id: r.id, name: r.name, credits: r.credits, unitAmount: r.unit_amount, currency: r.currency, active: r.active });
const toPurchase = (r: PurchaseRow): Purchase => ({
  checkoutSessionId: r.checkout_session_id,
  accountId: r.account_id,
  packId: r.pack_id,
  credits: r.credits,
  amount: r.amount,
  currency: r.currency,
  paymentIntentId: r.payment_intent_id,
  chargeId: r.charge_id,
  receiptUrl: r.receipt_url,
  refundedCredits: r.refunded_credits,
  createdAt: r.created_at,
});

/**
 * The payments tables (migration 1766000000000): packs, Stripe customers, purchases and the events
 * handled. A grant is written with its purchase row, its event row and its ledger row in one
 * transaction, so whatever number of deliveries of whichever events race, a session grants once.
 */
@Injectable()
export class PaymentsRepository {
  constructor(@Inject(BILLING_DB) private readonly db: DataSource) {}

  async packs(activeOnly: boolean): Promise<CreditPack[]> {
    const rows = await readRows<PackRow>(this.db,
      `SELECT id, name, credits, unit_amount, currency, active FROM credit_packs WHERE active OR NOT $1 ORDER BY unit_amount, id`,
      [activeOnly],
    );
    return rows.map(toPack);
  }

  async pack(id: string): Promise<CreditPack | null> {
    const [row] = await readRows<PackRow>(this.db, `SELECT id, name, credits, unit_amount, currency, active FROM credit_packs WHERE id = $1`, [id]);
    return row ? toPack(row) : null;
  }

  /** Creates or replaces a pack (the operator's CLI); the last writer wins, as with any edit. */
  async savePack(pack: CreditPack): Promise<void> {
    await sqlRows(this.db,
      `INSERT INTO credit_packs (id, name, credits, unit_amount, currency, active) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, credits = EXCLUDED.credits, unit_amount = EXCLUDED.unit_amount,
         currency = EXCLUDED.currency, active = EXCLUDED.active, updated_at = now()`,
      [pack.id, pack.name, pack.credits, pack.unitAmount, pack.currency, pack.active],
    );
  }

  async customerOf(accountId: string): Promise<string | null> {
    const [row] = await readRows<{ customer_id: string }>(this.db, `SELECT customer_id FROM stripe_customers WHERE account_id = $1`, [accountId]);
    return row?.customer_id ?? null;
  }

  async accountOfCustomer(customerId: string): Promise<string | null> {
    const [row] = await readRows<{ account_id: string }>(this.db, `SELECT account_id FROM stripe_customers WHERE customer_id = $1`, [customerId]);
    return row?.account_id ?? null;
  }

  /**
   * Links the account to a Stripe customer; when another request linked one first (two first
   * checkouts at once), that one stays and is returned. Safe under concurrency: the primary key decides.
   */
  async linkCustomer(accountId: string, customerId: string): Promise<string> {
    await sqlRows(this.db, `INSERT INTO stripe_customers (account_id, customer_id) VALUES ($1, $2) ON CONFLICT (account_id) DO NOTHING`, [accountId, customerId]);
    return (await this.customerOf(accountId)) ?? customerId;
  }

  async purchases(accountId: string, limit: number): Promise<Purchase[]> {
    const rows = await readRows<PurchaseRow>(this.db,
      `SELECT * FROM purchases WHERE account_id = $1 ORDER BY created_at DESC, checkout_session_id LIMIT $2`,
      [accountId, limit],
    );
    return rows.map(toPurchase);
  }

  /** Whether the event was handled before (a cheap check before calling Stripe; the insert decides). */
  async eventSeen(eventId: string): Promise<boolean> {
    return (await readRows<unknown>(this.db, `SELECT 1 FROM stripe_events WHERE event_id = $1`, [eventId])).length > 0;
  }

  /**
   * An event that changes nothing here, stored so that its next delivery is a duplicate; false when
   * it was stored before. Safe under concurrency: the primary key lets one insert through.
   */
  async recordEvent(event: StripeEventRecord, outcome: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db,
      `INSERT INTO stripe_events (event_id, type, stripe_created, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [event.eventId, event.type, event.created, outcome],
    );
    return rows.length > 0;
  }

  /** The account's restriction (a prepared statement on the primary key). */
  async restriction(accountId: string): Promise<Restriction | null> {
    const [row] = await FIND_RESTRICTION.rows(this.db, [accountId]);
    return row ? { reason: row.reason, message: row.message, since: row.created_at } : null;
  }

  /** The restrictions of these accounts (ids in lower case), by account id: one statement for many reserves. */
  async restrictionsOf(accountIds: readonly string[]): Promise<Map<string, Restriction>> {
    const rows = await FIND_RESTRICTIONS.rows(this.db, [accountIds]);
    return new Map(rows.map((row) => [row.account_id, { reason: row.reason, message: row.message, since: row.created_at }]));
  }

  /** Lifts the restriction (the operator); false when there was none. */
  async liftRestriction(accountId: string): Promise<boolean> {
    return (await sqlRows<unknown>(this.db, `DELETE FROM account_restrictions WHERE account_id = $1 RETURNING account_id`, [accountId])).length > 0;
  }

  /**
   * Takes back the credits of a refund (`amountRefunded`: Stripe's running total for the charge,
   * so a late or repeated event asks for no more than was refunded). The credits to take are the
   * purchase's share of the refunded amount minus what earlier refunds took; what was spent cannot
   * be taken (the balance never goes below zero): the account is restricted for the rest.
   * Concurrency: the event row, then the purchase row and the account row are locked in that order.
   */
  async takeBackRefund(
    event: StripeEventRecord,
    payment: { paymentIntentId: string | null; chargeId: string | null; amountRefunded: number },
    notice: (r: { purchase: Purchase; taken: number; shortfall: number }) => { ledgerNote: string; notice: BillingNotice; restriction: string | null },
  ): Promise<RefundOutcome> {
    return this.db.transaction(async (tx) => {
      if (!(await claimEvent(tx, event))) return { kind: 'duplicate' };
      const purchase = await lockPurchase(tx, payment.paymentIntentId, payment.chargeId);
      if (!purchase) {
        await eventOutcome(tx, event.eventId, 'ignored: not a pack purchase');
        return { kind: 'not-a-purchase' };
      }
      const share = purchase.amount > 0 ? Math.min(payment.amountRefunded, purchase.amount) / purchase.amount : 1;
      const target = Math.min(purchase.credits, Math.floor(purchase.credits * share));
      const due = target - purchase.refundedCredits;
      if (due <= 0) {
        await eventOutcome(tx, event.eventId, 'ignored: refunded before');
        return { kind: 'refunded-before' };
      }
      const [account] = await sqlRows<{ available: string }>(tx, `SELECT available FROM accounts WHERE account_id = $1 FOR UPDATE`, [purchase.accountId]);
      const taken = Math.min(due, Number(account?.available ?? 0));
      const shortfall = due - taken;
      const texts = notice({ purchase, taken, shortfall });
      if (taken > 0) {
        await sqlRows(tx, `UPDATE accounts SET available = available - $2, updated_at = now() WHERE account_id = $1`, [purchase.accountId, taken]);
        await tx.getRepository(LedgerEntryEntity).insert({ accountId: purchase.accountId, kind: 'adjustment', availableDelta: -taken, heldDelta: 0, jobId: null, modelId: null, note: texts.ledgerNote });
      }
      await sqlRows(tx, `UPDATE purchases SET refunded_credits = $2 WHERE checkout_session_id = $1`, [purchase.checkoutSessionId, target]);
      if (texts.restriction !== null) {
        await sqlRows(tx,
          `INSERT INTO account_restrictions (account_id, reason, message, stripe_object_id) VALUES ($1, 'refund', $2, $3) ON CONFLICT (account_id) DO NOTHING`,
          [purchase.accountId, texts.restriction, payment.chargeId],
        );
      }
      await writeNotice(tx, purchase.accountId, texts.notice);
      return { kind: 'applied', accountId: purchase.accountId, purchase, taken, shortfall };
    });
  }

  /** A dispute on a purchase's payment restricts the account (a dispute's message replaces a refund's), with its notice. */
  async restrictForDispute(
    event: StripeEventRecord,
    payment: { paymentIntentId: string | null; chargeId: string | null; disputeId: string },
    texts: (purchase: Purchase) => { notice: BillingNotice; restriction: string },
  ): Promise<DisputeOutcome> {
    return this.db.transaction(async (tx) => {
      if (!(await claimEvent(tx, event))) return { kind: 'duplicate' };
      const purchase = await lockPurchase(tx, payment.paymentIntentId, payment.chargeId);
      if (!purchase) {
        await eventOutcome(tx, event.eventId, 'ignored: not a pack purchase');
        return { kind: 'not-a-purchase' };
      }
      const { notice, restriction } = texts(purchase);
      await sqlRows(tx,
        `INSERT INTO account_restrictions (account_id, reason, message, stripe_object_id) VALUES ($1, 'dispute', $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET reason = 'dispute', message = EXCLUDED.message, stripe_object_id = EXCLUDED.stripe_object_id`,
        [purchase.accountId, restriction, payment.disputeId],
      );
      await writeNotice(tx, purchase.accountId, notice);
      return { kind: 'applied', accountId: purchase.accountId, purchase };
    });
  }

  /**
   * The purchase of a paid Checkout Session and its credits, with the event, in one transaction.
   * Concurrency: deliveries of one event wait on the event row's key and then find it (duplicate);
   * different events of one session wait on the purchase row's key and then find it. Either way the
   * loser inserts nothing and grants nothing; the account row's lock orders the ledger rows.
   */
  async grantPurchase(event: StripeEventRecord, purchase: Omit<Purchase, 'refundedCredits' | 'createdAt'>, note: string, savedCard: string | null = null): Promise<GrantOutcome> {
    return this.db.transaction(async (tx) => {
      if (!(await claimEvent(tx, event))) return 'duplicate';
      const account = await sqlRows<unknown>(tx, `SELECT 1 FROM accounts WHERE account_id = $1 FOR UPDATE`, [purchase.accountId]);
      if (account.length === 0) {
        await sqlRows(tx, `UPDATE stripe_events SET outcome = 'ignored: no such account' WHERE event_id = $1`, [event.eventId]);
        return 'no-account';
      }
      const inserted = await sqlRows<unknown>(tx,
        `INSERT INTO purchases (checkout_session_id, account_id, pack_id, credits, amount, currency, payment_intent_id, charge_id, receipt_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (checkout_session_id) DO NOTHING RETURNING checkout_session_id`,
        [purchase.checkoutSessionId, purchase.accountId, purchase.packId, purchase.credits, purchase.amount, purchase.currency, purchase.paymentIntentId, purchase.chargeId, purchase.receiptUrl],
      );
      if (inserted.length === 0) {
        await sqlRows(tx, `UPDATE stripe_events SET outcome = 'duplicate: session already granted' WHERE event_id = $1`, [event.eventId]);
        return 'duplicate';
      }
      await sqlRows(tx, `UPDATE accounts SET available = available + $2, updated_at = now() WHERE account_id = $1`, [purchase.accountId, purchase.credits]);
      await tx.getRepository(LedgerEntryEntity).insert({
        accountId: purchase.accountId,
        kind: 'grant',
        availableDelta: purchase.credits,
        heldDelta: 0,
        jobId: null,
        modelId: null,
        note,
      });
      // The card this payment saved (setup_future_usage off_session): automatic top-ups pay with it.
      if (savedCard) {
        await sqlRows(tx,
          `INSERT INTO saved_cards (account_id, payment_method_id) VALUES ($1, $2) ON CONFLICT (account_id) DO UPDATE SET payment_method_id = EXCLUDED.payment_method_id, updated_at = now()`,
          [purchase.accountId, savedCard],
        );
      }
      return 'applied';
    });
  }
}
