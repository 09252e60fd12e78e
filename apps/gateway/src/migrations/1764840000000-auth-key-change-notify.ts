import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to an API key (revoked, renewed secret, webhook URL, scopes, deleted) is announced by
 * the database itself, at its commit, on the channel `gen_api_key_changed` (payload
 * `{"apiKeyId","lookupId"}`): whoever made it (the gateway, the CLI against a running standalone or a
 * deployment without NATS, SQL by hand), every gateway listening drops its copy before the next
 * request. `last_used_at` alone changes nothing a cache holds, and is not announced.
 */
export class AuthKeyChangeNotify1764840000000 implements MigrationInterface {
  name = 'AuthKeyChangeNotify1764840000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION "auth"."announce_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        k record;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          k := OLD;
        ELSIF (to_jsonb(OLD) - 'last_used_at') IS NOT DISTINCT FROM (to_jsonb(NEW) - 'last_used_at') THEN
          RETURN NULL;
        ELSE
          k := NEW;
        END IF;
        PERFORM pg_notify('gen_api_key_changed', json_build_object('apiKeyId', k.id, 'lookupId', k.lookup_id)::text);
        IF TG_OP = 'UPDATE' AND OLD.lookup_id IS DISTINCT FROM NEW.lookup_id THEN
          PERFORM pg_notify('gen_api_key_changed', json_build_object('apiKeyId', OLD.id, 'lookupId', OLD.lookup_id)::text);
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER "api_keys_announce_change" AFTER UPDATE OR DELETE ON "auth"."api_keys"
      FOR EACH ROW EXECUTE FUNCTION "auth"."announce_api_key_change"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "api_keys_announce_change" ON "auth"."api_keys"`);
    await q.query(`DROP FUNCTION "auth"."announce_api_key_change"()`);
  }
}
