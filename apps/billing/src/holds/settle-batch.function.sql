-- A batch of settles in one statement, account rows locked first in id order: a capture charges the
-- hold, a release refunds it and gives its credits back to its key's spend of the hold's UTC day.
-- o_amount is null for a job with no hold left to settle.
CREATE OR REPLACE FUNCTION "billing"."settle_batch"(p_job_ids uuid[], p_outcomes text[], p_notes text[])
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
$$;
