-- Admissions in one statement and one synchronous commit (JobAdmissionRepository.admitBatch): each
-- account under its advisory lock (0x6a6f62 'job' and the account's hash; accounts in id order), its
-- queue cap (queued + processing < parallel limit + max waiting) checked after the lock, then, with
-- an owner, the claim of the account's head jobs for the submitting process (claim_queued, waiting).
-- Rows: one per item (its outcome, the account's counts, a null job), then one per job claimed
-- (outcome 'claimed'), given to the item of the same job id if there is one, else to the account's
-- first queued item. enable_seqscan = off: see claim-queued.function.sql.
CREATE OR REPLACE FUNCTION "generation"."admit_batch"(
  p_ids uuid[], p_accounts uuid[], p_api_keys uuid[], p_models text[], p_types text[], p_prompts text[], p_credits int[],
  p_parallel_limits int[], p_webhook_urls text[], p_cancel_after_seconds int[], p_max_waiting int[],
  p_owner text, p_lease_ms int, p_claims int[], p_inputs jsonb[], p_metadata jsonb[])
RETURNS TABLE (item int, outcome text, queued bigint, processing bigint, job "generation"."jobs") LANGUAGE plpgsql
SET enable_seqscan = off AS $$
DECLARE
  v_account uuid;
  v_first int;
  v_claim int;
  i int;
  claimed "generation"."jobs";
BEGIN
  FOR v_account IN SELECT DISTINCT a FROM unnest(p_accounts) AS a ORDER BY a LOOP
    PERFORM pg_advisory_xact_lock(6975330, hashtext(v_account::text));
    -- Read after the lock (a fresh snapshot): it sees every admission before ours.
    queued := (SELECT count(*) FROM "generation"."jobs" WHERE account_id = v_account AND status = 'queued');
    processing := (SELECT count(*) FROM "generation"."jobs" WHERE account_id = v_account AND status = 'processing');
    v_first := NULL;
    v_claim := 0;
    FOR i IN 1 .. cardinality(p_ids) LOOP
      CONTINUE WHEN p_accounts[i] <> v_account;
      IF queued + processing < p_parallel_limits[i] + p_max_waiting[i] THEN
        INSERT INTO "generation"."jobs" (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit, webhook_url, deadline_at,
                                         input, metadata)
        VALUES (p_ids[i], v_account, p_api_keys[i], p_models[i], p_types[i], p_prompts[i], 'queued', p_credits[i], p_parallel_limits[i],
                p_webhook_urls[i], now() + (p_cancel_after_seconds[i] * interval '1 second'),
                COALESCE(p_inputs[i], '{}'::jsonb), COALESCE(p_metadata[i], '{}'::jsonb))
        ON CONFLICT (id) DO NOTHING;
        IF FOUND THEN
          outcome := 'queued';
          queued := queued + 1;
          v_first := COALESCE(v_first, i);
          v_claim := v_claim + COALESCE(p_claims[i], 0);
        ELSE
          outcome := 'exists';
        END IF;
      ELSIF EXISTS (SELECT 1 FROM "generation"."jobs" WHERE id = p_ids[i]) THEN
        outcome := 'exists';
      ELSE
        outcome := 'queue-full';
      END IF;
      item := i;
      job := NULL;
      RETURN NEXT;
    END LOOP;
    IF p_owner IS NOT NULL AND v_claim > 0 THEN
      outcome := 'claimed';
      FOR claimed IN SELECT * FROM "generation"."claim_queued"(v_account, p_owner, p_lease_ms, v_claim, true) LOOP
        item := COALESCE(array_position(p_ids, claimed.id), v_first);
        job := claimed;
        RETURN NEXT;
      END LOOP;
    END IF;
  END LOOP;
END $$;
