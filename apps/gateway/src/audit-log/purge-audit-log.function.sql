-- The audit log's retention: deletes the entries older than p_days (at least 1) under the flag the
-- append-only trigger lets through; returns how many.
CREATE OR REPLACE FUNCTION "auth"."purge_audit_log"(p_days integer) RETURNS integer LANGUAGE plpgsql AS $$
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
$$;
