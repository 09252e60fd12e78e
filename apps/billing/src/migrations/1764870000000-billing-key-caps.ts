import { MigrationInterface, QueryRunner } from 'typeorm';
import { BillingBatchFunctions1764720000000 } from './1764720000000-billing-batch-functions';

/**
 * Spending caps per API key (docs/guide/limits.md, "Spending caps"): `key_caps` holds a key's caps in
 * credits per UTC day and per UTC month; `key_spend` what each key has held or been charged per UTC
 * day (a release, the refund of a failed generation, gives its credits back to the day of its hold).
 * Every hold records its key.
 *
 * `reserve_batch` and `settle_batch` are replaced (from their text in 1764720000000) to keep
 * `key_spend` and to refuse a hold that would pass a cap. Exact under concurrency: every `key_spend`
 * change of a key is made while its account's row is locked (both functions lock the account rows
 * first), so concurrent reserves of one key, on any number of replicas, see each other's spend.
 */
export class BillingKeyCaps1764870000000 implements MigrationInterface {
  name = 'BillingKeyCaps1764870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "billing"."holds" ADD COLUMN "api_key_id" uuid`);
    await q.query(`
      CREATE TABLE "billing"."key_caps" (
        "api_key_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "per_day" integer,
        "per_month" integer,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "key_caps_pkey" PRIMARY KEY ("api_key_id"),
        CONSTRAINT "key_caps_per_day_check" CHECK ("per_day" > 0),
        CONSTRAINT "key_caps_per_month_check" CHECK ("per_month" > 0)
      )`);
    await q.query(`CREATE INDEX "key_caps_by_account" ON "billing"."key_caps" ("account_id")`);
    await q.query(`
      CREATE TABLE "billing"."key_spend" (
        "api_key_id" uuid NOT NULL,
        "day" date NOT NULL,
        "account_id" uuid NOT NULL,
        "credits" bigint NOT NULL DEFAULT 0,
        CONSTRAINT "key_spend_pkey" PRIMARY KEY ("api_key_id", "day"),
        CONSTRAINT "key_spend_credits_check" CHECK ("credits" >= 0)
      )`);
    await q.query(`CREATE INDEX "key_spend_by_account_day" ON "billing"."key_spend" ("account_id", "day")`);
    await q.query(`DROP FUNCTION "billing"."settle_batch"(uuid[], text[], text[])`);
    await q.query(`DROP FUNCTION "billing"."reserve_batch"(uuid[], uuid[], integer[], bigint[], text[])`);
    // As in 1764720000000, plus p_key_ids (null: a hold with no key, no cap). Before the balance, a
    // key with a cap: the spend of the UTC day (and of the UTC month, the days since its first) plus
    // this amount must not pass the cap, else 'cap' with the period ('day' or 'month'), the cap and
    // the spend. A hold adds its amount to its key's day.
    await q.query(`
      CREATE FUNCTION "billing"."reserve_batch"(
        p_account_ids uuid[], p_job_ids uuid[], p_amounts integer[], p_minimums bigint[], p_model_ids text[], p_key_ids uuid[]
      ) RETURNS TABLE (o_item integer, o_outcome text, o_hold_id uuid, o_available bigint, o_cap_period text, o_cap bigint, o_spent bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        v_available bigint;
        v_hold uuid;
        v_today date := (now() AT TIME ZONE 'UTC')::date;
        v_per_day integer;
        v_per_month integer;
        v_spent bigint;
      BEGIN
        PERFORM 1 FROM "billing"."accounts" WHERE account_id = ANY (p_account_ids) ORDER BY account_id FOR UPDATE;
        FOR r IN
          SELECT t.ord::integer AS item, t.account_id, t.job_id, t.amount, t.minimum, t.model_id, t.key_id
          FROM unnest(p_account_ids, p_job_ids, p_amounts, p_minimums, p_model_ids, p_key_ids)
               WITH ORDINALITY AS t(account_id, job_id, amount, minimum, model_id, key_id, ord)
          ORDER BY t.ord
        LOOP
          o_item := r.item;
          o_hold_id := NULL;
          o_available := NULL;
          o_cap_period := NULL;
          o_cap := NULL;
          o_spent := NULL;
          SELECT a.available INTO v_available FROM "billing"."accounts" a WHERE a.account_id = r.account_id;
          IF NOT FOUND THEN
            o_outcome := 'no-account';
            RETURN NEXT;
            CONTINUE;
          END IF;
          SELECT h.id INTO v_hold FROM "billing"."holds" h WHERE h.job_id = r.job_id;
          IF v_hold IS NULL AND r.key_id IS NOT NULL THEN
            -- No cap row leaves both null.
            SELECT c.per_day, c.per_month INTO v_per_day, v_per_month
            FROM "billing"."key_caps" c WHERE c.api_key_id = r.key_id AND c.account_id = r.account_id;
            IF v_per_day IS NOT NULL THEN
              SELECT coalesce(sum(s.credits), 0) INTO v_spent FROM "billing"."key_spend" s
              WHERE s.api_key_id = r.key_id AND s.day = v_today;
              IF v_spent + r.amount > v_per_day THEN
                o_outcome := 'cap';
                o_available := v_available;
                o_cap_period := 'day';
                o_cap := v_per_day;
                o_spent := v_spent;
                RETURN NEXT;
                CONTINUE;
              END IF;
            END IF;
            IF v_per_month IS NOT NULL THEN
              SELECT coalesce(sum(s.credits), 0) INTO v_spent FROM "billing"."key_spend" s
              WHERE s.api_key_id = r.key_id AND s.day >= date_trunc('month', v_today)::date;
              IF v_spent + r.amount > v_per_month THEN
                o_outcome := 'cap';
                o_available := v_available;
                o_cap_period := 'month';
                o_cap := v_per_month;
                o_spent := v_spent;
                RETURN NEXT;
                CONTINUE;
              END IF;
            END IF;
          END IF;
          IF v_hold IS NULL AND v_available >= GREATEST(r.amount, r.minimum) THEN
            -- A reserve of the same job for another account, not yet committed, makes this wait for it.
            INSERT INTO "billing"."holds" (account_id, job_id, amount, status, model_id, api_key_id)
            VALUES (r.account_id, r.job_id, r.amount, 'held', r.model_id, r.key_id)
            ON CONFLICT (job_id) DO NOTHING
            RETURNING id INTO v_hold;
            IF v_hold IS NOT NULL THEN
              UPDATE "billing"."accounts"
              SET available = available - r.amount, held = held + r.amount, updated_at = now()
              WHERE account_id = r.account_id
              RETURNING available INTO v_available;
              INSERT INTO "billing"."ledger" (account_id, kind, available_delta, held_delta, job_id, note, model_id)
              VALUES (r.account_id, 'hold', -r.amount, r.amount, r.job_id, NULL, r.model_id);
              IF r.key_id IS NOT NULL THEN
                INSERT INTO "billing"."key_spend" (api_key_id, day, account_id, credits)
                VALUES (r.key_id, v_today, r.account_id, r.amount)
                ON CONFLICT (api_key_id, day) DO UPDATE SET credits = "billing"."key_spend".credits + EXCLUDED.credits;
              END IF;
              o_outcome := 'reserved';
              o_hold_id := v_hold;
              o_available := v_available;
              RETURN NEXT;
              CONTINUE;
            END IF;
            SELECT h.id INTO v_hold FROM "billing"."holds" h WHERE h.job_id = r.job_id;
          END IF;
          o_outcome := CASE WHEN v_hold IS NULL THEN 'insufficient' ELSE 'already-reserved' END;
          o_hold_id := v_hold;
          o_available := v_available;
          RETURN NEXT;
        END LOOP;
      END
      $$`);
    // As in 1764720000000, plus: a release gives the hold's credits back to its key's spend of the
    // hold's UTC day (a failed generation costs the cap nothing); a capture leaves the spend as it is.
    await q.query(`
      CREATE FUNCTION "billing"."settle_batch"(p_job_ids uuid[], p_outcomes text[], p_notes text[])
      RETURNS TABLE (o_item integer, o_amount integer)
      LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        v_account uuid;
        v_amount integer;
        v_model text;
        v_key uuid;
        v_created timestamptz;
        v_delta integer;
      BEGIN
        PERFORM 1 FROM "billing"."accounts"
        WHERE account_id IN (SELECT h.account_id FROM "billing"."holds" h WHERE h.job_id = ANY (p_job_ids) AND h.status = 'held')
        ORDER BY account_id FOR UPDATE;
        FOR r IN
          SELECT t.ord::integer AS item, t.job_id, t.outcome, t.note
          FROM unnest(p_job_ids, p_outcomes, p_notes) WITH ORDINALITY AS t(job_id, outcome, note, ord)
          ORDER BY t.ord
        LOOP
          IF r.outcome NOT IN ('capture', 'release') THEN
            RAISE EXCEPTION 'settle_batch: outcome must be capture or release, got %', r.outcome USING ERRCODE = '22023';
          END IF;
          o_item := r.item;
          UPDATE "billing"."holds"
          SET status = CASE WHEN r.outcome = 'capture' THEN 'captured' ELSE 'released' END, settled_at = now()
          WHERE job_id = r.job_id AND status = 'held'
          RETURNING account_id, amount, model_id, api_key_id, created_at INTO v_account, v_amount, v_model, v_key, v_created;
          IF NOT FOUND THEN
            o_amount := NULL;
            RETURN NEXT;
            CONTINUE;
          END IF;
          v_delta := CASE WHEN r.outcome = 'capture' THEN 0 ELSE v_amount END;
          UPDATE "billing"."accounts"
          SET available = available + v_delta, held = held - v_amount, updated_at = now()
          WHERE account_id = v_account;
          INSERT INTO "billing"."ledger" (account_id, kind, available_delta, held_delta, job_id, note, model_id)
          VALUES (v_account, r.outcome, v_delta, -v_amount, r.job_id, r.note, v_model);
          IF r.outcome = 'release' AND v_key IS NOT NULL THEN
            UPDATE "billing"."key_spend" SET credits = GREATEST(credits - v_amount, 0)
            WHERE api_key_id = v_key AND day = (v_created AT TIME ZONE 'UTC')::date;
          END IF;
          o_amount := v_amount;
          RETURN NEXT;
        END LOOP;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "billing"."settle_batch"(uuid[], text[], text[])`);
    await q.query(`DROP FUNCTION "billing"."reserve_batch"(uuid[], uuid[], integer[], bigint[], text[], uuid[])`);
    // The functions as 1764720000000 makes them (one copy of their text).
    await new BillingBatchFunctions1764720000000().up(q);
    await q.query(`DROP TABLE "billing"."key_spend"`);
    await q.query(`DROP TABLE "billing"."key_caps"`);
    await q.query(`ALTER TABLE "billing"."holds" DROP COLUMN "api_key_id"`);
  }
}
