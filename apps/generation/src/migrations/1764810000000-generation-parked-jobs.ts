import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Parked provider jobs and per-binding limits (docs/design/jobs.md, "Waiting upstream").
 *
 * A provider job holds a worker only to submit upstream and to collect its output. In between it is
 * parked: still `processing` (for its owner and for the account's parallel slots), no lease and no
 * heartbeat (`lease_owner`/`lease_expires_at` null, so lease reclaim never sees it), and a time
 * `next_check_at` when a poll scheduler should read the upstream job's state. `upstream_checks`
 * counts those reads (the cadence slows down with it), `upstream_at` is when the upstream job was
 * created, `upstream_deadline_at` when the binding's total timeout ends it.
 *
 * `binding_slots`: one row per upstream job in flight of a binding with `maxInFlight`, tied to the job
 * (not to a process: an upstream job keeps running when we die). A slot whose job is no longer
 * `processing` does not count and is swept. `binding_state`: the rate window of a binding with
 * `maxRequestsPerSecond`, and the shared backoff after a provider's `429`.
 *
 * `claim_jobs_except`: the workers' claim (`claim_queued`, unchanged otherwise) that leaves queued
 * the jobs of models whose binding is full, so they wait in their account's order.
 */
export class GenerationParkedJobs1764810000000 implements MigrationInterface {
  name = 'GenerationParkedJobs1764810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "generation"."jobs"
        ADD COLUMN "next_check_at" timestamptz,
        ADD COLUMN "upstream_checks" integer NOT NULL DEFAULT 0,
        ADD COLUMN "upstream_at" timestamptz,
        ADD COLUMN "upstream_deadline_at" timestamptz`);
    // The poll scheduler's due set: parked jobs by their next check.
    await q.query(`CREATE INDEX "jobs_parked" ON "generation"."jobs" ("next_check_at") WHERE "status" = 'processing' AND "next_check_at" IS NOT NULL`);
    await q.query(`
      CREATE TABLE "generation"."binding_slots" (
        "job_id" uuid PRIMARY KEY,
        "binding" text NOT NULL,
        "acquired_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "binding_slots_binding" ON "generation"."binding_slots" ("binding")`);
    await q.query(`
      CREATE TABLE "generation"."binding_state" (
        "binding" text PRIMARY KEY,
        "window_start" timestamptz NOT NULL DEFAULT now(),
        "window_count" integer NOT NULL DEFAULT 0,
        "backoff_until" timestamptz
      )`);

    // One slot for the job unless the binding's jobs in flight already reach p_max; true when the job
    // holds one (already, or now). Under the binding's advisory lock (0x736c6f74 'slot'), so replicas
    // never exceed it together; slots of jobs no longer processing are not counted.
    await q.query(`
      CREATE FUNCTION "generation"."acquire_binding_slot"(p_binding text, p_job uuid, p_max int)
      RETURNS boolean LANGUAGE plpgsql AS $$
      DECLARE
        v_used int;
      BEGIN
        PERFORM pg_advisory_xact_lock(1936486260, hashtext(p_binding));
        IF EXISTS (SELECT 1 FROM "generation"."binding_slots" WHERE job_id = p_job) THEN RETURN true; END IF;
        SELECT count(*) INTO v_used FROM "generation"."binding_slots" s
          JOIN "generation"."jobs" j ON j.id = s.job_id AND j.status = 'processing'
          WHERE s.binding = p_binding;
        IF v_used >= p_max THEN RETURN false; END IF;
        INSERT INTO "generation"."binding_slots" (job_id, binding) VALUES (p_job, p_binding);
        RETURN true;
      END $$`);

    // Up to p_want request permits of the binding's current one-second window (p_rate per second),
    // none while its shared backoff lasts. Returns the permits granted and the backoff's end.
    await q.query(`
      CREATE FUNCTION "generation"."take_binding_permits"(p_binding text, p_rate int, p_want int)
      RETURNS TABLE (granted int, backoff_until timestamptz) LANGUAGE plpgsql AS $$
      DECLARE
        v "generation"."binding_state";
      BEGIN
        INSERT INTO "generation"."binding_state" (binding) VALUES (p_binding) ON CONFLICT DO NOTHING;
        SELECT * INTO v FROM "generation"."binding_state" WHERE binding = p_binding FOR UPDATE;
        IF v.backoff_until IS NOT NULL AND v.backoff_until > now() THEN
          granted := 0; backoff_until := v.backoff_until; RETURN NEXT; RETURN;
        END IF;
        IF v.window_start <= now() - interval '1 second' THEN
          v.window_start := now(); v.window_count := 0;
        END IF;
        granted := CASE WHEN p_rate <= 0 THEN p_want ELSE GREATEST(0, LEAST(p_want, p_rate - v.window_count)) END;
        UPDATE "generation"."binding_state" SET window_start = v.window_start, window_count = v.window_count + granted
          WHERE binding = p_binding;
        backoff_until := NULL;
        RETURN NEXT;
      END $$`);

    await q.query(`
      CREATE FUNCTION "generation"."claim_jobs_except"(p_account uuid, p_owner text, p_lease_ms int, p_max int, p_skip text[])
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
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "generation"."claim_jobs_except"(uuid, text, int, int, text[])`);
    await q.query(`DROP FUNCTION "generation"."take_binding_permits"(text, int, int)`);
    await q.query(`DROP FUNCTION "generation"."acquire_binding_slot"(text, uuid, int)`);
    await q.query(`DROP TABLE "generation"."binding_state"`);
    await q.query(`DROP TABLE "generation"."binding_slots"`);
    await q.query(`DROP INDEX "generation"."jobs_parked"`);
    await q.query(`
      ALTER TABLE "generation"."jobs"
        DROP COLUMN "upstream_deadline_at",
        DROP COLUMN "upstream_at",
        DROP COLUMN "upstream_checks",
        DROP COLUMN "next_check_at"`);
  }
}
