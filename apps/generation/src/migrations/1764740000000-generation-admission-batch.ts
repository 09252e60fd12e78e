import { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_ADMIT_JOB } from './1764730000000-generation-admission-claim';

/** `admit_batch` as this migration makes it (a later migration's down makes it again from here). */
export const CREATE_ADMIT_BATCH = `
      CREATE FUNCTION "generation"."admit_batch"(
        p_ids uuid[], p_accounts uuid[], p_api_keys uuid[], p_models text[], p_types text[], p_prompts text[], p_credits int[],
        p_parallel_limits int[], p_webhook_urls text[], p_cancel_after_seconds int[], p_max_waiting int[],
        p_owner text, p_lease_ms int, p_claims int[])
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
              INSERT INTO "generation"."jobs" (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit, webhook_url, deadline_at)
              VALUES (p_ids[i], v_account, p_api_keys[i], p_models[i], p_types[i], p_prompts[i], 'queued', p_credits[i], p_parallel_limits[i],
                      p_webhook_urls[i], now() + (p_cancel_after_seconds[i] * interval '1 second'))
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
      END $$`;

/**
 * Admissions group-committed (docs/design/durability.md), and counted by index.
 *
 * `admit_job` admitted one job per statement and per synchronous commit, under the account's
 * advisory lock held until that commit, so one account's submits took turns at the speed of a WAL
 * flush each. And it counted the account's queued and running jobs with one `status IN (...)` filter,
 * which no partial index serves: PostgreSQL scanned the whole table, finished jobs included, under
 * that lock, so each submit cost more than the one before (2 ms at 20,000 jobs; found by `bench:api`).
 *
 * `admit_batch` admits the submits that arrived together (one array per column, item i in the i-th
 * element of each): accounts in id order (so batches of several replicas never deadlock), each under
 * its advisory lock, its queued and running jobs counted once (two index-only counts, one per partial
 * index, whatever the table's size), then its items in order against that count, then, for the items
 * that came with a free worker (`p_claims`), one claim of the account's head jobs (`claim_queued`,
 * unchanged). One statement, one synchronous commit: every accepted job is durable before anyone
 * is told.
 *
 * Rows: one per item (`item`, its outcome, the account's counts after it, a null job), then one per
 * job claimed (outcome 'claimed'), given to the item of the same job id if there is one, else to the
 * account's first queued item.
 *
 * Both functions run their statements by index only (`enable_seqscan = off` while they run): every
 * one has an index made for it. A PL/pgSQL function keeps, per connection, the generic plan it made
 * after a few calls, until the table's statistics next change. Made while `jobs` was small (a fresh
 * install, the first minute after a deploy), a seq scan is the cheaper plan, and it was kept while
 * the table grew by thousands of jobs a second: every claim read every job (5 ms at 20,000 jobs,
 * found by `bench:api`). Planning at each call instead (`plan_cache_mode`) cost more CPU than it saved.
 */
export class GenerationAdmissionBatch1764740000000 implements MigrationInterface {
  name = 'GenerationAdmissionBatch1764740000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "generation"."admit_job"(uuid, uuid, uuid, text, text, text, int, int, text, int, int, text, int, int)`);
    await q.query(CREATE_ADMIT_BATCH);
    await q.query(`ALTER FUNCTION "generation"."claim_queued"(uuid, text, int, int, boolean) SET enable_seqscan = off`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER FUNCTION "generation"."claim_queued"(uuid, text, int, int, boolean) RESET enable_seqscan`);
    await q.query(`DROP FUNCTION "generation"."admit_batch"(uuid[], uuid[], uuid[], text[], text[], text[], int[], int[], text[], int[], int[], text, int, int[])`);
    await q.query(CREATE_ADMIT_JOB);
  }
}
