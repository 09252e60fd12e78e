import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A change of an account's plan or limits (`plans set`, SQL by hand) is announced by the database at
 * its commit on the channel `gen_account_changed` (payload `{"accountId"}`): every gateway listening
 * drops its copy of the account's plan before the next request, with or without a broker between the
 * writer and it. Balance changes (holds, captures, grants) touch other columns and are not announced:
 * the trigger fires only for the listed columns, and only when one of them really changed.
 */
export class BillingAccountChangeNotify1764930000000 implements MigrationInterface {
  name = 'BillingAccountChangeNotify1764930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "billing"."announce_account_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('gen_account_changed', json_build_object('accountId', NEW.account_id)::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER "accounts_announce_plan_change" AFTER UPDATE OF "plan", "requests_per_minute", "parallel_tasks" ON "billing"."accounts"
      FOR EACH ROW
      WHEN (OLD."plan" IS DISTINCT FROM NEW."plan" OR OLD."requests_per_minute" IS DISTINCT FROM NEW."requests_per_minute" OR OLD."parallel_tasks" IS DISTINCT FROM NEW."parallel_tasks")
      EXECUTE FUNCTION "billing"."announce_account_change"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "accounts_announce_plan_change" ON "billing"."accounts"`);
    await q.query(`DROP FUNCTION "billing"."announce_account_change"()`);
  }
}
