-- A batch of settles in one statement, account rows locked first in id order: a capture charges the
-- hold, a release refunds it and gives its credits back to its key's spend of the hold's UTC day.
-- o_amount is null for a job with no hold left to settle (a job named twice is settled by its first
-- item). Set-based: the holds in one UPDATE, then one balance change per account, the ledger rows in
-- item order and one spend change per key and day, rather than four statements per item.
CREATE OR REPLACE FUNCTION "billing"."settle_batch"(p_job_ids uuid[], p_outcomes text[], p_notes text[])
RETURNS TABLE (o_item integer, o_amount integer)
LANGUAGE plpgsql AS $$
DECLARE
  v_bad text;
BEGIN
  SELECT t.outcome INTO v_bad FROM unnest(p_outcomes) WITH ORDINALITY AS t(outcome, ord)
  WHERE t.outcome NOT IN ('capture', 'release') ORDER BY t.ord LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'settle_batch: outcome must be capture or release, got %', v_bad USING ERRCODE = '22023';
  END IF;
  PERFORM 1 FROM "billing"."accounts"
  WHERE account_id IN (SELECT h.account_id FROM "billing"."holds" h WHERE h.job_id = ANY (p_job_ids) AND h.status = 'held')
  ORDER BY account_id FOR UPDATE;
  RETURN QUERY
  WITH items AS (
    SELECT t.ord::integer AS item, t.job_id, t.outcome, t.note
    FROM unnest(p_job_ids, p_outcomes, p_notes) WITH ORDINALITY AS t(job_id, outcome, note, ord)
  ), firsts AS (
    SELECT DISTINCT ON (i.job_id) i.item, i.job_id, i.outcome, i.note FROM items i ORDER BY i.job_id, i.item
  ), settled AS (
    UPDATE "billing"."holds" h
    SET status = CASE WHEN f.outcome = 'capture' THEN 'captured' ELSE 'released' END, settled_at = now()
    FROM firsts f
    WHERE h.job_id = f.job_id AND h.status = 'held'
    RETURNING f.item, f.job_id, f.outcome, f.note, h.account_id, h.amount, h.model_id, h.api_key_id, h.created_at,
              CASE WHEN f.outcome = 'capture' THEN 0 ELSE h.amount END AS delta
  ), balances AS (
    UPDATE "billing"."accounts" a
    SET available = a.available + s.delta, held = a.held - s.amount, updated_at = now()
    FROM (SELECT account_id, sum(delta) AS delta, sum(amount) AS amount FROM settled GROUP BY account_id) s
    WHERE a.account_id = s.account_id
  ), ledger AS (
    INSERT INTO "billing"."ledger" (account_id, kind, available_delta, held_delta, job_id, note, model_id)
    SELECT s.account_id, s.outcome, s.delta, -s.amount, s.job_id, s.note, s.model_id FROM settled s ORDER BY s.item
  ), spend AS (
    UPDATE "billing"."key_spend" k SET credits = GREATEST(k.credits - s.amount, 0)
    FROM (SELECT api_key_id, (created_at AT TIME ZONE 'UTC')::date AS day, sum(amount) AS amount
          FROM settled WHERE outcome = 'release' AND api_key_id IS NOT NULL GROUP BY 1, 2) s
    WHERE k.api_key_id = s.api_key_id AND k.day = s.day
  )
  SELECT i.item, s.amount FROM items i LEFT JOIN settled s ON s.item = i.item ORDER BY i.item;
END
$$;
