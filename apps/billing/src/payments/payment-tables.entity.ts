import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, Unique, UpdateDateColumn } from 'typeorm';

/*
 * The payments tables (docs/operations/payments.md). Mirror migration 1766000000000 (billing-payments),
 * constraint and index names included. One file: the five are one feature's rows and small.
 */

/** A credit pack the operator sells: `credits` for `unitAmount` (smallest unit of `currency`). */
@Entity({ name: 'credit_packs' })
@Check('credit_packs_credits_check', `"credits" > 0`)
@Check('credit_packs_unit_amount_check', `"unit_amount" > 0`)
export class CreditPackEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'credit_packs_pkey' })
  id!: string;

  @Column('text')
  name!: string;

  @Column('integer')
  credits!: number;

  @Column('integer', { name: 'unit_amount' })
  unitAmount!: number;

  @Column('text')
  currency!: string;

  /** Retired packs stay for the purchases that name them. */
  @Column('boolean', { default: true })
  active!: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** An account's Stripe customer. */
@Entity({ name: 'stripe_customers' })
@Unique('stripe_customers_customer_id_key', ['customerId'])
export class StripeCustomerEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'stripe_customers_pkey' })
  accountId!: string;

  @Column('text', { name: 'customer_id' })
  customerId!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** A paid Checkout Session: its credits were granted with this row, once. */
@Entity({ name: 'purchases' })
@Index('purchases_by_account', ['accountId', 'createdAt'])
@Index('purchases_by_payment_intent', ['paymentIntentId'])
@Check('purchases_credits_check', `"credits" > 0`)
@Check('purchases_refunded_credits_check', `"refunded_credits" >= 0 AND "refunded_credits" <= "credits"`)
export class PurchaseEntity {
  @PrimaryColumn('text', { name: 'checkout_session_id', primaryKeyConstraintName: 'purchases_pkey' })
  checkoutSessionId!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text', { name: 'pack_id' })
  packId!: string;

  @Column('integer')
  credits!: number;

  /** What was paid, in the smallest unit of `currency`. */
  @Column('integer')
  amount!: number;

  @Column('text')
  currency!: string;

  @Column('text', { name: 'payment_intent_id', nullable: true })
  paymentIntentId!: string | null;

  @Column('text', { name: 'charge_id', nullable: true })
  chargeId!: string | null;

  @Column('text', { name: 'receipt_url', nullable: true })
  receiptUrl!: string | null;

  /** Credits taken back by refunds (never more than `credits`). */
  @Column('integer', { name: 'refunded_credits', default: 0 })
  refundedCredits!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** A Stripe event billing handled, by its id: a second delivery finds it and changes nothing. */
@Entity({ name: 'stripe_events' })
export class StripeEventEntity {
  @PrimaryColumn('text', { name: 'event_id', primaryKeyConstraintName: 'stripe_events_pkey' })
  eventId!: string;

  @Column('text')
  type!: string;

  /** The event's `created` (Stripe's clock). */
  @Column('timestamptz', { name: 'stripe_created' })
  stripeCreated!: Date;

  /** What handling it did (StripeEventOutcome, or why it was ignored). */
  @Column('text')
  outcome!: string;

  @CreateDateColumn({ name: 'received_at', type: 'timestamptz' })
  receivedAt!: Date;
}

/** An account whose submits are refused with `402` until the operator lifts the restriction. */
@Entity({ name: 'account_restrictions' })
export class AccountRestrictionEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'account_restrictions_pkey' })
  accountId!: string;

  /** `refund` (refunded credits were spent) or `dispute`. */
  @Column('text')
  reason!: string;

  /** What the customer is told (the 402's message). */
  @Column('text')
  message!: string;

  @Column('text', { name: 'stripe_object_id', nullable: true })
  stripeObjectId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** The Stripe Price each paid plan is sold at (the operator's `plans price`). */
@Entity({ name: 'plan_prices' })
@Unique('plan_prices_price_id_key', ['priceId'])
@Check('plan_prices_plan_check', `"plan" IN ('lite','pro','enterprise')`)
export class PlanPriceEntity {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'plan_prices_pkey' })
  plan!: string;

  @Column('text', { name: 'price_id' })
  priceId!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** An account's subscription as billing last read it from Stripe (migration 1766000000001). */
@Entity({ name: 'subscriptions' })
@Unique('subscriptions_subscription_id_key', ['subscriptionId'])
export class SubscriptionEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'subscriptions_pkey' })
  accountId!: string;

  @Column('text', { name: 'subscription_id' })
  subscriptionId!: string;

  /** Stripe's status (`active`, `past_due`, `canceled`, ...). */
  @Column('text')
  status!: string;

  /** The plan of the subscription's price at Stripe (the account's may lag: a downgrade waits for `downgradeAt`). */
  @Column('text')
  plan!: string;

  @Column('timestamptz', { name: 'current_period_end', nullable: true })
  currentPeriodEnd!: Date | null;

  @Column('boolean', { name: 'cancel_at_period_end', default: false })
  cancelAtPeriodEnd!: boolean;

  /** When the account moves down to `plan` (the end of the period already paid for). */
  @Column('timestamptz', { name: 'downgrade_at', nullable: true })
  downgradeAt!: Date | null;

  /** A renewal failed: past this, the account moves to Free. */
  @Column('timestamptz', { name: 'grace_until', nullable: true })
  graceUntil!: Date | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** The card the account's last pack payment saved for off-session payments (migration 1766000000002). */
@Entity({ name: 'saved_cards' })
export class SavedCardEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'saved_cards_pkey' })
  accountId!: string;

  @Column('text', { name: 'payment_method_id' })
  paymentMethodId!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** An account's automatic top-up: the pack bought when its balance crosses the low-balance threshold. */
@Entity({ name: 'top_up_settings' })
export class TopUpSettingsEntity {
  @PrimaryColumn('uuid', { name: 'account_id', primaryKeyConstraintName: 'top_up_settings_pkey' })
  accountId!: string;

  @Column('text', { name: 'pack_id' })
  packId!: string;

  /** Failed attempts in a row (the back-off grows with it); 0 after a success. */
  @Column('integer', { default: 0 })
  failures!: number;

  /** After a failure: the earliest retry. */
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  /** Why the last attempt failed (the dashboard's banner); null once one succeeds. */
  @Column('text', { name: 'last_error', nullable: true })
  lastError!: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}

/** One top-up per crossing: `crossingKey` is the low-balance event's id (or a retry's). */
@Entity({ name: 'top_up_attempts' })
@Unique('top_up_attempts_crossing_key_key', ['crossingKey'])
@Index('top_up_attempts_by_account', ['accountId', 'createdAt'])
export class TopUpAttemptEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'top_up_attempts_pkey' })
  id!: string;

  @Column('uuid', { name: 'account_id' })
  accountId!: string;

  @Column('text', { name: 'crossing_key' })
  crossingKey!: string;

  @Column('text', { name: 'pack_id' })
  packId!: string;

  /** `pending`, `succeeded`, `failed`. */
  @Column('text')
  status!: string;

  @Column('text', { name: 'payment_intent_id', nullable: true })
  paymentIntentId!: string | null;

  @Column('text', { nullable: true })
  error!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
