-- The claim of docs/design/jobs.md, one round trip: the account's `account_slots` row locked, then its oldest
-- queued jobs taken up to its free slots. Each statement of a volatile PL/pgSQL function takes a fresh
-- snapshot, so the count of running jobs is read after the lock.
-- p_wait: the submit path (admit_batch) waits for the account's row (it already holds the account's
-- admission lock, which claimers never take, so no cycle); workers skip an account someone is claiming.
-- p_skip: models whose jobs stay queued, in their account's order (claim_jobs_except).
-- enable_seqscan = off: every statement has an index made for it, and a generic plan made while `jobs`
-- was small (a seq scan) would be kept per connection while the table grows (found by bench:api).
CREATE OR REPLACE FUNCTION "generation"."claim_queued"(p_account uuid, p_owner text, p_lease_ms int, p_max int, p_wait boolean, p_skip text[] DEFAULT '{}')
RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  IF p_wait THEN
    PERFORM 1 FROM "generation"."account_slots" WHERE account_id = p_account FOR UPDATE;
  ELSE
    PERFORM 1 FROM "generation"."account_slots" WHERE account_id = p_account FOR UPDATE SKIP LOCKED;
  END IF;
  IF NOT FOUND THEN
    -- The account's first claim (a new row is locked by its inserter), or, without p_wait, someone holds it.
    INSERT INTO "generation"."account_slots" (account_id) VALUES (p_account) ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
      IF NOT p_wait THEN RETURN; END IF;
      PERFORM 1 FROM "generation"."account_slots" WHERE account_id = p_account FOR UPDATE;
    END IF;
  END IF;
  -- The head job's parallel_limit is the account's limit (taken from its plan at submit).
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
