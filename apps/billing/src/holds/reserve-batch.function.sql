-- A batch of reserves in one statement (HoldsRepository.reserveBatch), items in array order, every
-- account row it may change locked first, in account id order (no deadlock between batches). For
-- each item: no account row, 'no-account'; a hold for the job already, 'already-reserved'; a key
-- whose cap (UTC day, then UTC month) this amount would pass, 'cap' with the period, the cap and the
-- spend; otherwise the hold, the balance change, the ledger row and the key's spend of the day when
-- at least GREATEST(amount, minimum) is available, else 'insufficient' with the current balance.
CREATE OR REPLACE FUNCTION "billing"."reserve_batch"(
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
$$;
