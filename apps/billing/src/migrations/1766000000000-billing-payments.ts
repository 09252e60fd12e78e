import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payments through Stripe (docs/operations/payments.md). New tables only, so the previous release,
 * which knows none of them, runs unchanged beside it:
 * - `credit_packs`: what the operator sells (credits for a price);
 * - `stripe_customers`: the account's Stripe customer;
 * - `purchases`: one row per paid Checkout Session, its key the session id: the grant of its credits
 *   is written with the row in one transaction, so a session grants once however often its events come;
 * - `stripe_events`: every Stripe event billing handled, by id: a retry or a duplicate changes nothing;
 * - `account_restrictions`: an account whose submits are refused (`402`) until the operator lifts it
 *   (a refund of spent credits, a dispute).
 */
export class BillingPayments1766000000000 implements MigrationInterface {
  name = 'BillingPayments1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "billing"."credit_packs" (
        "id" text NOT NULL,
        "name" text NOT NULL,
        "credits" integer NOT NULL,
        "unit_amount" integer NOT NULL,
        "currency" text NOT NULL,
        "active" boolean NOT NULL DEFAULT true,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "credit_packs_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "credit_packs_credits_check" CHECK ("credits" > 0),
        CONSTRAINT "credit_packs_unit_amount_check" CHECK ("unit_amount" > 0)
      )`);
    await q.query(`
      CREATE TABLE "billing"."stripe_customers" (
        "account_id" uuid NOT NULL,
        "customer_id" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "stripe_customers_pkey" PRIMARY KEY ("account_id"),
        CONSTRAINT "stripe_customers_customer_id_key" UNIQUE ("customer_id")
      )`);
    await q.query(`
      CREATE TABLE "billing"."purchases" (
        "checkout_session_id" text NOT NULL,
        "account_id" uuid NOT NULL,
        "pack_id" text NOT NULL,
        "credits" integer NOT NULL,
        "amount" integer NOT NULL,
        "currency" text NOT NULL,
        "payment_intent_id" text,
        "charge_id" text,
        "receipt_url" text,
        "refunded_credits" integer NOT NULL DEFAULT 0,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "purchases_pkey" PRIMARY KEY ("checkout_session_id"),
        CONSTRAINT "purchases_credits_check" CHECK ("credits" > 0),
        CONSTRAINT "purchases_refunded_credits_check" CHECK ("refunded_credits" >= 0 AND "refunded_credits" <= "credits")
      )`);
    await q.query(`CREATE INDEX "purchases_by_account" ON "billing"."purchases" ("account_id", "created_at")`);
    await q.query(`CREATE INDEX "purchases_by_payment_intent" ON "billing"."purchases" ("payment_intent_id")`);
    await q.query(`
      CREATE TABLE "billing"."stripe_events" (
        "event_id" text NOT NULL,
        "type" text NOT NULL,
        "stripe_created" timestamptz NOT NULL,
        "outcome" text NOT NULL,
        "received_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "stripe_events_pkey" PRIMARY KEY ("event_id")
      )`);
    await q.query(`
      CREATE TABLE "billing"."account_restrictions" (
        "account_id" uuid NOT NULL,
        "reason" text NOT NULL,
        "message" text NOT NULL,
        "stripe_object_id" text,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "account_restrictions_pkey" PRIMARY KEY ("account_id")
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "billing"."account_restrictions"`);
    await q.query(`DROP TABLE "billing"."stripe_events"`);
    await q.query(`DROP TABLE "billing"."purchases"`);
    await q.query(`DROP TABLE "billing"."stripe_customers"`);
    await q.query(`DROP TABLE "billing"."credit_packs"`);
  }
}
