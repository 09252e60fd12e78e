import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Plans as Stripe subscriptions (docs/operations/payments.md, "Subscriptions"). New tables only:
 * - `plan_prices`: the Stripe Price the operator sells each plan at;
 * - `subscriptions`: an account's subscription as billing last read it from Stripe, with the
 *   plan change waiting for the period's end (a downgrade) and the end of a failed renewal's grace.
 *   One row per paying account: the sweep of due rows reads it whole, without an index.
 */
export class BillingSubscriptions1766000000001 implements MigrationInterface {
  name = 'BillingSubscriptions1766000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "billing"."plan_prices" (
        "plan" text NOT NULL,
        "price_id" text NOT NULL,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "plan_prices_pkey" PRIMARY KEY ("plan"),
        CONSTRAINT "plan_prices_price_id_key" UNIQUE ("price_id"),
        CONSTRAINT "plan_prices_plan_check" CHECK ("plan" IN ('lite','pro','enterprise'))
      )`);
    await q.query(`
      CREATE TABLE "billing"."subscriptions" (
        "account_id" uuid NOT NULL,
        "subscription_id" text NOT NULL,
        "status" text NOT NULL,
        "plan" text NOT NULL,
        "current_period_end" timestamptz,
        "cancel_at_period_end" boolean NOT NULL DEFAULT false,
        "downgrade_at" timestamptz,
        "grace_until" timestamptz,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "subscriptions_pkey" PRIMARY KEY ("account_id"),
        CONSTRAINT "subscriptions_subscription_id_key" UNIQUE ("subscription_id")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billing"."subscriptions"`);
    await q.query(`DROP TABLE "billing"."plan_prices"`);
  }
}
