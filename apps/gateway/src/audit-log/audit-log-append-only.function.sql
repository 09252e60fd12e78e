-- Trigger of `audit_log`: every UPDATE, DELETE and TRUNCATE is refused, except the deletes of the
-- retention purge (purge_audit_log sets the transaction-local flag gen.audit_purge).
CREATE OR REPLACE FUNCTION "auth"."audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('gen.audit_purge', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'auth.audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$$;
