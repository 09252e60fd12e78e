import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { BILLING_DB } from '../billing.tokens';
import { LedgerEntryEntity } from '../holds/ledger-entry.entity';

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

  /**
   * The purchase of a paid Checkout Session and its credits, with the event, in one transaction.
   * Concurrency: deliveries of one event wait on the event row's key and then find it (duplicate);
   * different events of one session wait on the purchase row's key and then find it. Either way the
   * loser inserts nothing and grants nothing; the account row's lock orders the ledger rows.
   */
  async grantPurchase(event: StripeEventRecord, purchase: Omit<Purchase, 'refundedCredits' | 'createdAt'>, note: string): Promise<GrantOutcome> {
    return this.db.transaction(async (tx) => {
      const stored = await sqlRows<unknown>(tx,
        `INSERT INTO stripe_events (event_id, type, stripe_created, outcome) VALUES ($1, $2, $3, 'applied') ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
        [event.eventId, event.type, event.created],
      );
      if (stored.length === 0) return 'duplicate';
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
      return 'applied';
    });
  }
}
