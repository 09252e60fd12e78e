-- The workers' claim (JobClaimsRepository.claim): claim_queued without waiting, committed
-- asynchronously (a claim lost in a database crash is redone: the job is simply queued again).
CREATE OR REPLACE FUNCTION "generation"."claim_jobs"(p_account uuid, p_owner text, p_lease_ms int, p_max int)
RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql AS $$
BEGIN
  -- Until the end of this transaction: its commit releases the account's row without waiting for the WAL flush.
  PERFORM set_config('synchronous_commit', 'off', true);
  RETURN QUERY SELECT * FROM "generation"."claim_queued"(p_account, p_owner, p_lease_ms, p_max, false);
END $$;
