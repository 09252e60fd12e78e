import { MigrationInterface, QueryRunner } from 'typeorm';
import { CREATE_ADMIT_BATCH } from './1764740000000-generation-admission-batch';

/**
 * Model inputs and several outputs (docs/guide/models.md, "Inputs").
 *
 * - `input`: the customer's `input` as applied at submit (validated, defaults filled in), for the
 *   engine and the record; `{}` when none.
 * - `metadata`: the customer's own string keys and values, opaque: stored and returned, never read.
 * - `outputs`: every output of a completed job, in order, each
 *   `{"key", "content_type", "bytes", "width"?, "height"?, "duration_s"?}`; `output_key` and
 *   `output_content_type` stay the first one's (the record's `output_url`, the content host's 410).
 *
 * `admit_batch` takes each admission's `input` and `metadata` (two more arrays, last); otherwise it
 * is the function of migration 1764740000000, unchanged.
 */
export const CREATE_ADMIT_BATCH_WITH_INPUT = `
      CREATE FUNCTION "generation"."admit_batch"(
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
      END $$`;

export class GenerationInputsOutputs1764830000000 implements MigrationInterface {
  name = 'GenerationInputsOutputs1764830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."jobs" ADD "input" jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD "metadata" jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD "outputs" jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD CONSTRAINT "jobs_input_object" CHECK (jsonb_typeof("input") = 'object')`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD CONSTRAINT "jobs_metadata_object" CHECK (jsonb_typeof("metadata") = 'object')`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD CONSTRAINT "jobs_outputs_array" CHECK (jsonb_typeof("outputs") = 'array')`);
    // Jobs completed before: their one output, as every later job lists it (its size unknown: null).
    await q.query(
      `UPDATE "generation"."jobs" SET "outputs" = jsonb_build_array(jsonb_build_object('key', "output_key", 'content_type', "output_content_type", 'bytes', NULL))
       WHERE "output_key" IS NOT NULL`,
    );
    // The outputs after the first, by key (the content host's 410): only jobs that have any are indexed.
    await q.query(`CREATE INDEX "jobs_more_outputs" ON "generation"."jobs" USING gin ("outputs" jsonb_path_ops) WHERE jsonb_array_length("outputs") > 1`);
    await q.query(`DROP FUNCTION "generation"."admit_batch"(uuid[], uuid[], uuid[], text[], text[], text[], int[], int[], text[], int[], int[], text, int, int[])`);
    await q.query(CREATE_ADMIT_BATCH_WITH_INPUT);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP FUNCTION "generation"."admit_batch"(uuid[], uuid[], uuid[], text[], text[], text[], int[], int[], text[], int[], int[], text, int, int[], jsonb[], jsonb[])`,
    );
    await q.query(CREATE_ADMIT_BATCH);
    await q.query(`DROP INDEX "generation"."jobs_more_outputs"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP CONSTRAINT "jobs_outputs_array"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP CONSTRAINT "jobs_metadata_object"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP CONSTRAINT "jobs_input_object"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP COLUMN "outputs"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP COLUMN "metadata"`);
    await q.query(`ALTER TABLE "generation"."jobs" DROP COLUMN "input"`);
  }
}
