import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Group commit of holds: `reserve_batch` and `settle_batch` take a batch of reserves (or settles) as
 * arrays and apply them in ONE statement, so one transaction and one commit serve the whole batch,
 * with an outcome per item (one account short of credits does not fail the others).
 *
 * Deadlocks: each function first locks every account row it may change, in account id order, and
 * only then touches holds and the ledger. Two batches (reserves, settles, or one of each, on any
 * number of replicas) therefore queue on their first common account and never wait on each other in
 * a cycle over accounts. The ledger ordering argument of BillingRepository.ledgerPage still holds:
 * every ledger row is inserted while its account row is locked.
 */
export class BillingBatchFunctions1764720000000 implements MigrationInterface {
  name = 'BillingBatchFunctions1764720000000';

  async up(q: QueryRunner): Promise<void> {
    // Items are applied in array order (the order callers queued them). For each: no account row,
    // 'no-account'; a hold for the job already (committed, or earlier in this batch), 'already-reserved'
    // with the current balance; otherwise the hold, the balance change and the ledger row when at least
    // GREATEST(amount, minimum) is available, else 'insufficient' with the current balance.
    // Every statement in a PL/pgSQL function takes a fresh snapshot (READ COMMITTED), so after the
    // account locks a hold committed by the batch that held them is seen by the job lookup.
    await q.query(`
      CREATE FUNCTION "billing"."reserve_batch"(
        p_account_ids uuid[], p_job_ids uuid[], p_amounts integer[], p_minimums bigint[], p_model_ids text[]
      ) RETURNS TABLE (o_item integer, o_outcome text, o_hold_id uuid, o_available bigint)
      LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        v_available bigint;
        v_hold uuid;
      BEGIN
        PERFORM 1 FROM "billing"."accounts" WHERE account_id = ANY (p_account_ids) ORDER BY account_id FOR UPDATE;
        FOR r IN
          SELECT t.ord::integer AS item, t.account_id, t.job_id, t.amount, t.minimum, t.model_id
          FROM unnest(p_account_ids, p_job_ids, p_amounts, p_minimums, p_model_ids)
               WITH ORDINALITY AS t(account_id, job_id, amount, minimum, model_id, ord)
          ORDER BY t.ord
        LOOP
          o_item := r.item;
          o_hold_id := NULL;
          o_available := NULL;
          SELECT a.available INTO v_available FROM "billing"."accounts" a WHERE a.account_id = r.account_id;
          IF NOT FOUND THEN
            o_outcome := 'no-account';
            RETURN NEXT;
            CONTINUE;
          END IF;
          SELECT h.id INTO v_hold FROM "billing"."holds" h WHERE h.job_id = r.job_id;
          IF v_hold IS NULL AND v_available >= GREATEST(r.amount, r.minimum) THEN
            -- A reserve of the same job for another account, not yet committed, makes this wait for it.
            INSERT INTO "billing"."holds" (account_id, job_id, amount, status, model_id)
            VALUES (r.account_id, r.job_id, r.amount, 'held', r.model_id)
            ON CONFLICT (job_id) DO NOTHING
            RETURNING id INTO v_hold;
            IF v_hold IS NOT NULL THEN
              UPDATE "billing"."accounts"
              SET available = available - r.amount, held = held + r.amount, updated_at = now()
              WHERE account_id = r.account_id
              RETURNING available INTO v_available;
              INSERT INTO "billing"."ledger" (account_id, kind, available_delta, held_delta, job_id, note, model_id)
              VALUES (r.account_id, 'hold', -r.amount, r.amount, r.job_id, NULL, r.model_id);
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
    // Items in array order: a hold still 'held' is captured (the charge stays spent) or released (its
    // credits come back), with its ledger row; a job with no open hold (unknown, or settled before,
    // including earlier in this batch) returns a null amount: nothing to settle.
    await q.query(`
      CREATE FUNCTION "billing"."settle_batch"(p_job_ids uuid[], p_outcomes text[], p_notes text[])
      RETURNS TABLE (o_item integer, o_amount integer)
      LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        v_account uuid;
        v_amount integer;
        v_model text;
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
          RETURNING account_id, amount, model_id INTO v_account, v_amount, v_model;
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
          o_amount := v_amount;
          RETURN NEXT;
        END LOOP;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "billing"."settle_batch"(uuid[], text[], text[])`);
    await q.query(`DROP FUNCTION "billing"."reserve_batch"(uuid[], uuid[], integer[], bigint[], text[])`);
  }
}
