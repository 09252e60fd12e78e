import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every statement that changes the catalogue (`models add/update/disable/enable/sync`, SQL by hand)
 * is announced by the database at its commit on the channel `gen_catalogue_changed`: every gateway
 * and generation replica listening reads the catalogue again before its next request, with or
 * without a broker between the writer and them.
 */
export class GenerationCatalogueNotify1764840000001 implements MigrationInterface {
  name = 'GenerationCatalogueNotify1764840000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "generation"."announce_catalogue_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('gen_catalogue_changed', '');
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER "models_announce_change" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "generation"."models"
      FOR EACH STATEMENT EXECUTE FUNCTION "generation"."announce_catalogue_change"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "models_announce_change" ON "generation"."models"`);
    await q.query(`DROP FUNCTION "generation"."announce_catalogue_change"()`);
  }
}
