import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer round trips and commits per generation (docs/design/durability.md):
 * - `claim_queued`: the claim of docs/design/jobs.md (the account's `account_slots` row locked, then the
 *   oldest queued jobs taken up to its free slots), as one function so that it is one round trip.
 *   Each statement of a volatile PL/pgSQL function takes a fresh snapshot, so the count of running
 *   jobs is still read after the lock, as it was with two statements.
 * - `claim_jobs`: the workers' claim, committed asynchronously (a claim lost in a database crash is
 *   redone: the job is simply queued again).
 * - `admit_job`: the admission (queue cap under the account's advisory lock) and, when the
 *   submitting process has a free worker, the claim of the account's head jobs, in one statement and
 *   one synchronous commit: the accepted job is durable before anyone is told.
 * - outbox leases: the relay claims rows for a while, publishes with no transaction open, then marks
 *   them; rows of a relay that died are claimed again when the lease ends.
 */
export class GenerationAdmissionClaim1764730000000 implements MigrationInterface {
  name = 'GenerationAdmissionClaim1764730000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "generation"."outbox"
        ADD COLUMN "lease_owner" text,
        ADD COLUMN "lease_expires_at" timestamptz`);

    // p_wait: the submit path waits for the account's row (it already holds the account's admission
    // lock, which claimers never take, so no cycle); workers skip an account someone is claiming.
    await q.query(`
      CREATE FUNCTION "generation"."claim_queued"(p_account uuid, p_owner text, p_lease_ms int, p_max int, p_wait boolean)
      RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql AS $$
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
          SELECT id, seq, parallel_limit FROM "generation"."jobs" WHERE account_id = p_account AND status = 'queued' ORDER BY seq LIMIT p_max
        ), free AS (
          SELECT (SELECT parallel_limit FROM head ORDER BY seq LIMIT 1)
               - (SELECT count(*) FROM "generation"."jobs" WHERE account_id = p_account AND status = 'processing') AS slots
        )
        UPDATE "generation"."jobs" SET status = 'processing', started_at = COALESCE(started_at, now()), attempts = attempts + 1,
               lease_owner = p_owner, lease_expires_at = now() + (p_lease_ms * interval '1 millisecond')
        WHERE id IN (SELECT id FROM head ORDER BY seq LIMIT GREATEST(0, (SELECT slots FROM free)))
          AND status = 'queued'
        RETURNING *;
      END $$`);

    await q.query(`
      CREATE FUNCTION "generation"."claim_jobs"(p_account uuid, p_owner text, p_lease_ms int, p_max int)
      RETURNS SETOF "generation"."jobs" LANGUAGE plpgsql AS $$
      BEGIN
        -- Until the end of this transaction: its commit releases the account's row without waiting for the WAL flush.
        PERFORM set_config('synchronous_commit', 'off', true);
        RETURN QUERY SELECT * FROM "generation"."claim_queued"(p_account, p_owner, p_lease_ms, p_max, false);
      END $$`);

    await q.query(CREATE_ADMIT_JOB);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "generation"."admit_job"(uuid, uuid, uuid, text, text, text, int, int, text, int, int, text, int, int)`);
    await q.query(`DROP FUNCTION "generation"."claim_jobs"(uuid, text, int, int)`);
    await q.query(`DROP FUNCTION "generation"."claim_queued"(uuid, text, int, int, boolean)`);
    await q.query(`ALTER TABLE "generation"."outbox" DROP COLUMN "lease_expires_at", DROP COLUMN "lease_owner"`);
  }
}

/**
 * `admit_job` as this migration makes it (migration 1764740000000's `down` makes it again). One row
 * per job claimed, or one row with a null job. The queue cap counts queued + processing jobs; a claim
 * leaves that sum unchanged and a finish only lowers it, so admissions need to exclude each other only
 * (the advisory lock, 0x6a6f62 'job' and the account's hash).
 */
export const CREATE_ADMIT_JOB = `
      CREATE FUNCTION "generation"."admit_job"(
        p_id uuid, p_account uuid, p_api_key uuid, p_model text, p_type text, p_prompt text, p_credits int,
        p_parallel_limit int, p_webhook_url text, p_cancel_after_seconds int, p_max_waiting int,
        p_owner text, p_lease_ms int, p_claim int)
      RETURNS TABLE (outcome text, queued bigint, processing bigint, job "generation"."jobs") LANGUAGE plpgsql AS $$
      DECLARE
        claimed "generation"."jobs";
      BEGIN
        PERFORM pg_advisory_xact_lock(6975330, hashtext(p_account::text));
        -- Read after the lock (a fresh snapshot): it sees every admission before ours.
        SELECT count(*) FILTER (WHERE status = 'queued'), count(*) FILTER (WHERE status = 'processing')
          INTO queued, processing
          FROM "generation"."jobs" WHERE account_id = p_account AND status IN ('queued', 'processing');
        IF queued + processing < p_parallel_limit + p_max_waiting THEN
          INSERT INTO "generation"."jobs" (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit, webhook_url, deadline_at)
          VALUES (p_id, p_account, p_api_key, p_model, p_type, p_prompt, 'queued', p_credits, p_parallel_limit, p_webhook_url,
                  now() + (p_cancel_after_seconds * interval '1 second'))
          ON CONFLICT (id) DO NOTHING;
          outcome := CASE WHEN FOUND THEN 'queued' ELSE 'exists' END;
        ELSIF EXISTS (SELECT 1 FROM "generation"."jobs" WHERE id = p_id) THEN
          outcome := 'exists';
        ELSE
          outcome := 'queue-full';
        END IF;
        IF outcome = 'queued' AND p_owner IS NOT NULL AND p_claim > 0 THEN
          FOR claimed IN SELECT * FROM "generation"."claim_queued"(p_account, p_owner, p_lease_ms, p_claim, true) LOOP
            job := claimed;
            RETURN NEXT;
          END LOOP;
          IF FOUND THEN RETURN; END IF;
        END IF;
        job := NULL;
        RETURN NEXT;
      END $$`;
