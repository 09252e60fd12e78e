-- Trigger of `accounts`: a change of an account's plan or limits is announced at its commit on
-- `gen_account_changed` (payload {"accountId"}); the gateways drop their copy of the plan.
CREATE OR REPLACE FUNCTION "billing"."announce_account_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gen_account_changed', json_build_object('accountId', NEW.account_id)::text);
  RETURN NULL;
END $$;
