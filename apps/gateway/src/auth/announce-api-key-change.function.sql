-- Trigger of `api_keys`: a key changed (anything but last_used_at) or deleted is announced at the
-- commit on `gen_api_key_changed` (its id and lookup id, and the old lookup id when that changed), so
-- every gateway drops its cached copy of the key (api-key-cache.ts).
CREATE OR REPLACE FUNCTION "auth"."announce_api_key_change"() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
