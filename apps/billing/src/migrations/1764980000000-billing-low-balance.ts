import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Low-balance alerts (docs/guide/limits.md, "Low-balance alerts").
 *
 * `accounts.low_balance_threshold` (null: off) and `accounts.low_balance_alerted` (the current
 * crossing has been alerted). A BEFORE UPDATE trigger on `accounts` detects the crossing in the
 * very statement that moves the balance (reserve_batch, settle_batch, an operator adjustment, any
 * future writer): when `available` goes down and ends below the threshold while not yet alerted, it
 * sets `low_balance_alerted` and writes an `account.low_balance` event to `billing.outbox` in the
 * same transaction; when `available` is back to or above the threshold, it re-arms. Every balance
 * change holds the account row's lock, so concurrent holds see each other's flag: exactly one event
 * per crossing, and no event is lost between commit and publish (the relay publishes the row later).
 */
export class BillingLowBalance1764980000000 implements MigrationInterface {
  name = 'BillingLowBalance1764980000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "billing"."accounts" ADD COLUMN "low_balance_threshold" integer`);
    await q.query(`ALTER TABLE "billing"."accounts" ADD COLUMN "low_balance_alerted" boolean NOT NULL DEFAULT false`);
    await q.query(
      `ALTER TABLE "billing"."accounts" ADD CONSTRAINT "accounts_low_balance_threshold_check" CHECK ("low_balance_threshold" > 0)`,
    );
    await q.query(`
      CREATE TABLE "billing"."outbox" (
        "id" uuid NOT NULL,
        "pattern" text NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "published_at" timestamptz,
        "publish_attempts" integer NOT NULL DEFAULT 0,
        "lease_owner" text,
        "lease_expires_at" timestamptz,
        CONSTRAINT "outbox_pkey" PRIMARY KEY ("id")
      )`);
    await q.query(`CREATE INDEX "outbox_pending" ON "billing"."outbox" ("created_at") WHERE "published_at" IS NULL`);
    // The payload is AccountLowBalanceEvent (libs/contracts); its eventId is the row's id (the
    // JetStream message id, and the consumers' idempotency key).
    await q.query(`
      CREATE FUNCTION "billing"."low_balance_crossing"() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        v_id uuid;
      BEGIN
        IF NEW.available < NEW.low_balance_threshold THEN
          IF NOT NEW.low_balance_alerted AND NEW.available < OLD.available THEN
            NEW.low_balance_alerted := true;
            v_id := gen_random_uuid();
            INSERT INTO "billing"."outbox" (id, pattern, payload)
            VALUES (v_id, 'account.low_balance', jsonb_build_object(
              'eventId', v_id,
              'event', 'account.low_balance',
              'accountId', NEW.account_id,
              'threshold', NEW.low_balance_threshold,
              'available', NEW.available,
              'crossedAt', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
          END IF;
        ELSIF NEW.low_balance_alerted THEN
          NEW.low_balance_alerted := false;
        END IF;
        RETURN NEW;
      END
      $$`);
    // WHEN: accounts without a threshold (the common case) pay nothing per balance change.
    await q.query(`
      CREATE TRIGGER "accounts_low_balance" BEFORE UPDATE ON "billing"."accounts"
      FOR EACH ROW WHEN (NEW.low_balance_threshold IS NOT NULL)
      EXECUTE FUNCTION "billing"."low_balance_crossing"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "accounts_low_balance" ON "billing"."accounts"`);
    await q.query(`DROP FUNCTION "billing"."low_balance_crossing"()`);
    await q.query(`DROP TABLE "billing"."outbox"`);
    await q.query(`ALTER TABLE "billing"."accounts" DROP CONSTRAINT "accounts_low_balance_threshold_check"`);
    await q.query(`ALTER TABLE "billing"."accounts" DROP COLUMN "low_balance_alerted"`);
    await q.query(`ALTER TABLE "billing"."accounts" DROP COLUMN "low_balance_threshold"`);
  }
}
