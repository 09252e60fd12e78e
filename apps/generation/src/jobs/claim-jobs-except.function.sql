-- The workers' claim (claim_queued without waiting, asynchronous commit) that leaves queued the jobs of
-- the models in p_skip (another pool's models, or a binding at its maxInFlight), so they wait in
-- their account's order.
CREATE OR REPLACE FUNCTION "generation"."claim_jobs_except"(p_account uuid, p_owner text, p_lease_ms int, p_max int, p_skip text[])
RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  PERFORM set_config('synchronous_commit', 'off', true);
  PERFORM 1 FROM "generation"."account_slots" WHERE account_id = p_account FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN
    INSERT INTO "generation"."account_slots" (account_id) VALUES (p_account) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN RETURN; END IF;
  END IF;
  RETURN QUERY
  WITH head AS (
    SELECT id, seq, parallel_limit FROM "generation"."jobs"
    WHERE account_id = p_account AND status = 'queued' AND model_id <> ALL (p_skip) ORDER BY seq LIMIT p_max
  ), free AS (
    SELECT (SELECT parallel_limit FROM head ORDER BY seq LIMIT 1)
         - (SELECT count(*) FROM "generation"."jobs" WHERE account_id = p_account AND status = 'processing') AS slots
  )
  UPDATE "generation"."jobs" SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = attempts + 1,
         lease_owner = p_owner, lease_expires_at = now() + (p_lease_ms * interval '1 millisecond')
  WHERE id IN (SELECT id FROM head ORDER BY seq LIMIT GREATEST(0, (SELECT slots FROM free)))
    AND status = 'queued'
  RETURNING *;
END $$;
