-- The workers' claim (claim_queued without waiting, asynchronous commit) that leaves queued the jobs of
-- the models in p_skip (another pool's models, or a binding at its maxInFlight), so they wait in
-- their account's order.
CREATE OR REPLACE FUNCTION "generation"."claim_jobs_except"(p_account uuid, p_owner text, p_lease_ms int, p_max int, p_skip text[])
RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql SET enable_seqscan = off AS $$
BEGIN
  -- Until the end of this transaction: its commit releases the account's row without waiting for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);
  RETURN QUERY SELECT * FROM "generation"."claim_queued"(p_account, p_owner, p_lease_ms, p_max, false, p_skip);
END $$;
