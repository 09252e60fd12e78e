-- A batch of reserves in one statement (HoldsRepository.reserveBatch), items in array order, every
-- account row it may change locked first, in account id order (no deadlock between batches). For
-- each item: no account row, 'no-account'; a hold for the job already, 'already-reserved'; a key
-- whose cap (UTC day, then UTC month) this amount would pass, 'cap' with the period, the cap and the
-- spend; otherwise the hold, the balance change, the ledger row and the key's spend of the day when
-- at least GREATEST(amount, minimum) is available, else 'insufficient' with the current balance.
-- Each item costs one statement (its hold's INSERT; a capped key's also a look for its hold and its
-- spend): the balances are read once after the locks and followed in the loop, each key's caps read
-- once, and the balance changes (one per account), the ledger rows (in item order) and the spends
-- (one per key) written after the loop.
CREATE OR REPLACE FUNCTION "billing"."reserve_batch"(
  p_account_ids uuid[], p_job_ids uuid[], p_amounts integer[], p_minimums bigint[], p_model_ids text[], p_key_ids uuid[]
) RETURNS TABLE (o_item integer, o_outcome text, o_hold_id uuid, o_available bigint, o_cap_period text, o_cap bigint, o_spent bigint)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  v_today date := (now() AT TIME ZONE 'UTC')::date;
  v_hold uuid;
  v_at integer;
  v_key_at integer;
  v_spent bigint;
  -- The batch's accounts, each one's balance as the items so far leave it, and what they reserved on it.
  v_accounts uuid[];
  v_available bigint[];
  v_reserved bigint[];
  -- Low-balance alerts (low_balance_crossing, a trigger of each balance change): an account's threshold,
  -- whether it has been alerted, and what the batch had reserved on it when its balance first went
  -- below the threshold (null: it did not), the balance the alert reports.
  v_thresholds integer[];
  v_alerted boolean[];
  v_reserved_at_crossing bigint[];
  -- The caps of each (key, account) met so far (null: none).
  v_cap_of text[] := '{}';
  v_per_day integer[] := '{}';
  v_per_month integer[] := '{}';
  v_cap_at integer;
  v_day integer;
  v_month integer;
  -- The keys met so far, the account of the first, and what the batch's holds added to each one's spend.
  v_keys uuid[] := '{}';
  v_key_accounts uuid[] := '{}';
  v_key_added bigint[] := '{}';
  -- The ledger rows to write, in item order.
  v_ledger_accounts uuid[] := '{}';
  v_ledger_jobs uuid[] := '{}';
  v_ledger_amounts integer[] := '{}';
  v_ledger_models text[] := '{}';
BEGIN
  PERFORM 1 FROM "billing"."accounts" WHERE account_id = ANY (p_account_ids) ORDER BY account_id FOR UPDATE;
  -- Read after the locks (a fresh snapshot): every earlier batch on these accounts is committed.
  SELECT COALESCE(array_agg(a.account_id), '{}'), COALESCE(array_agg(a.available), '{}'), COALESCE(array_agg(0::bigint), '{}'),
         COALESCE(array_agg(a.low_balance_threshold), '{}'), COALESCE(array_agg(a.low_balance_alerted), '{}'),
         COALESCE(array_agg(NULL::bigint), '{}')
  INTO v_accounts, v_available, v_reserved, v_thresholds, v_alerted, v_reserved_at_crossing
  FROM "billing"."accounts" a WHERE a.account_id = ANY (p_account_ids);
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
    v_at := array_position(v_accounts, r.account_id);
    IF v_at IS NULL THEN
      o_outcome := 'no-account';
      RETURN NEXT;
      CONTINUE;
    END IF;
    o_available := v_available[v_at];
    v_hold := NULL;
    v_key_at := NULL;
    IF r.key_id IS NOT NULL THEN
      v_key_at := array_position(v_keys, r.key_id);
      IF v_key_at IS NULL THEN
        v_keys := v_keys || r.key_id;
        v_key_accounts := v_key_accounts || r.account_id;
        v_key_added := v_key_added || 0::bigint;
        v_key_at := cardinality(v_keys);
      END IF;
      v_cap_at := array_position(v_cap_of, r.key_id::text || '/' || r.account_id::text);
      IF v_cap_at IS NULL THEN
        v_cap_of := v_cap_of || (r.key_id::text || '/' || r.account_id::text);
        v_cap_at := cardinality(v_cap_of);
        -- No cap row leaves both null.
        SELECT c.per_day, c.per_month INTO v_day, v_month
        FROM "billing"."key_caps" c WHERE c.api_key_id = r.key_id AND c.account_id = r.account_id;
        v_per_day := v_per_day || v_day;
        v_per_month := v_per_month || v_month;
      END IF;
      IF v_per_day[v_cap_at] IS NOT NULL OR v_per_month[v_cap_at] IS NOT NULL THEN
        -- A capped key: a job already held answers as such, never as over the cap.
        SELECT h.id INTO v_hold FROM "billing"."holds" h WHERE h.job_id = r.job_id;
        IF v_hold IS NULL AND v_per_day[v_cap_at] IS NOT NULL THEN
          SELECT coalesce(sum(s.credits), 0) + v_key_added[v_key_at] INTO v_spent FROM "billing"."key_spend" s
          WHERE s.api_key_id = r.key_id AND s.day = v_today;
          IF v_spent + r.amount > v_per_day[v_cap_at] THEN
            o_outcome := 'cap';
            o_cap_period := 'day';
            o_cap := v_per_day[v_cap_at];
            o_spent := v_spent;
            RETURN NEXT;
            CONTINUE;
          END IF;
        END IF;
        IF v_hold IS NULL AND v_per_month[v_cap_at] IS NOT NULL THEN
          SELECT coalesce(sum(s.credits), 0) + v_key_added[v_key_at] INTO v_spent FROM "billing"."key_spend" s
          WHERE s.api_key_id = r.key_id AND s.day >= date_trunc('month', v_today)::date;
          IF v_spent + r.amount > v_per_month[v_cap_at] THEN
            o_outcome := 'cap';
            o_cap_period := 'month';
            o_cap := v_per_month[v_cap_at];
            o_spent := v_spent;
            RETURN NEXT;
            CONTINUE;
          END IF;
        END IF;
      END IF;
    END IF;
    IF v_hold IS NULL AND v_available[v_at] >= GREATEST(r.amount, r.minimum) THEN
      -- A job held already makes this insert nothing; one held by a transaction not yet committed
      -- makes it wait for that one.
      INSERT INTO "billing"."holds" (account_id, job_id, amount, status, model_id, api_key_id)
      VALUES (r.account_id, r.job_id, r.amount, 'held', r.model_id, r.key_id)
      ON CONFLICT (job_id) DO NOTHING
      RETURNING id INTO v_hold;
      IF v_hold IS NOT NULL THEN
        v_available[v_at] := v_available[v_at] - r.amount;
        v_reserved[v_at] := v_reserved[v_at] + r.amount;
        IF r.amount > 0 AND v_available[v_at] < v_thresholds[v_at] AND NOT v_alerted[v_at] AND v_reserved_at_crossing[v_at] IS NULL THEN
          v_reserved_at_crossing[v_at] := v_reserved[v_at];
        END IF;
        v_ledger_accounts := v_ledger_accounts || r.account_id;
        v_ledger_jobs := v_ledger_jobs || r.job_id;
        v_ledger_amounts := v_ledger_amounts || r.amount;
        v_ledger_models := v_ledger_models || r.model_id;
        IF v_key_at IS NOT NULL THEN
          v_key_added[v_key_at] := v_key_added[v_key_at] + r.amount;
        END IF;
        o_outcome := 'reserved';
        o_hold_id := v_hold;
        o_available := v_available[v_at];
        RETURN NEXT;
        CONTINUE;
      END IF;
    END IF;
    IF v_hold IS NULL THEN
      SELECT h.id INTO v_hold FROM "billing"."holds" h WHERE h.job_id = r.job_id;
    END IF;
    o_outcome := CASE WHEN v_hold IS NULL THEN 'insufficient' ELSE 'already-reserved' END;
    o_hold_id := v_hold;
    RETURN NEXT;
  END LOOP;
  -- An account whose balance went below its threshold is first set to the balance after that hold,
  -- so the alert reports it as it would have one hold at a time; then each account to its balance.
  UPDATE "billing"."accounts" a
  SET available = a.available - d.reserved, held = a.held + d.reserved, updated_at = now()
  FROM unnest(v_accounts, v_reserved_at_crossing) AS d(account_id, reserved)
  WHERE a.account_id = d.account_id AND d.reserved IS NOT NULL;
  UPDATE "billing"."accounts" a
  SET available = a.available - d.rest, held = a.held + d.rest, updated_at = now()
  FROM (SELECT u.account_id, u.reserved - COALESCE(u.at_crossing, 0) AS rest
        FROM unnest(v_accounts, v_reserved, v_reserved_at_crossing) AS u(account_id, reserved, at_crossing)) d
  WHERE a.account_id = d.account_id AND d.rest > 0;
  INSERT INTO "billing"."ledger" (account_id, kind, available_delta, held_delta, job_id, note, model_id)
  SELECT l.account_id, 'hold', -l.amount, l.amount, l.job_id, NULL, l.model_id
  FROM unnest(v_ledger_accounts, v_ledger_jobs, v_ledger_amounts, v_ledger_models) WITH ORDINALITY AS l(account_id, job_id, amount, model_id, ord)
  ORDER BY l.ord;
  INSERT INTO "billing"."key_spend" (api_key_id, day, account_id, credits)
  SELECT k.key_id, v_today, k.account_id, k.added
  FROM unnest(v_keys, v_key_accounts, v_key_added) AS k(key_id, account_id, added)
  WHERE k.added > 0
  ON CONFLICT (api_key_id, day) DO UPDATE SET credits = "billing"."key_spend".credits + EXCLUDED.credits;
END
$$;
