import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (docs/guide/dashboard.md, "Audit log"): append-only. A trigger refuses every UPDATE,
 * DELETE and TRUNCATE, except the retention purge: `purge_audit_log(days)` deletes entries older
 * than `days` (at least 1) with a transaction-local flag the trigger lets through. No code path
 * changes or deletes an entry otherwise; the database refuses it even if one tried.
 */
export class AuthAuditLog1764870000001 implements MigrationInterface {
  name = 'AuthAuditLog1764870000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."audit_log" (
        "id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        "account_id" uuid NOT NULL,
        "at" timestamptz NOT NULL DEFAULT now(),
        "actor_kind" text NOT NULL CHECK ("actor_kind" IN ('user', 'operator')),
        "actor_id" uuid,
        "actor" text NOT NULL,
        "ip" text,
        "action" text NOT NULL,
        "target" text,
        "details" jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX "audit_log_by_account" ON "auth"."audit_log" ("account_id", "id")`);
    await q.query(`CREATE INDEX "audit_log_by_time" ON "auth"."audit_log" ("at")`);
    await q.query(`
      CREATE FUNCTION "auth"."audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' AND current_setting('gen.audit_purge', true) = 'on' THEN
          RETURN OLD;
        END IF;
        RAISE EXCEPTION 'auth.audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
      END
      $$`);
    await q.query(`
      CREATE TRIGGER "audit_log_append_only" BEFORE UPDATE OR DELETE ON "auth"."audit_log"
      FOR EACH ROW EXECUTE FUNCTION "auth"."audit_log_append_only"()`);
    await q.query(`
      CREATE TRIGGER "audit_log_no_truncate" BEFORE TRUNCATE ON "auth"."audit_log"
      FOR EACH STATEMENT EXECUTE FUNCTION "auth"."audit_log_append_only"()`);
    await q.query(`
      CREATE FUNCTION "auth"."purge_audit_log"(p_days integer) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        v_deleted integer;
      BEGIN
        IF p_days IS NULL OR p_days < 1 THEN
          RAISE EXCEPTION 'purge_audit_log: days must be at least 1, got %', p_days USING ERRCODE = '22023';
        END IF;
        PERFORM set_config('gen.audit_purge', 'on', true);
        DELETE FROM "auth"."audit_log" WHERE "at" < now() - make_interval(days => p_days);
        GET DIAGNOSTICS v_deleted = ROW_COUNT;
        PERFORM set_config('gen.audit_purge', 'off', true);
        RETURN v_deleted;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "auth"."purge_audit_log"(integer)`);
    await q.query(`DROP TABLE "auth"."audit_log"`);
    await q.query(`DROP FUNCTION "auth"."audit_log_append_only"()`);
  }
}
