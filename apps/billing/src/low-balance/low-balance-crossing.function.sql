-- BEFORE UPDATE trigger of `accounts` (only rows with a threshold): when `available` goes down and
-- ends below the threshold while not yet alerted, sets `low_balance_alerted` and writes an
-- account.low_balance event (AccountLowBalanceEvent, its eventId the row's id) to the outbox in the
-- same transaction; when `available` is back to or above the threshold, it re-arms.
CREATE OR REPLACE FUNCTION "billing"."low_balance_crossing"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid;
BEGIN
  IF NEW.available < NEW.low_balance_threshold THEN
    IF NOT NEW.low_balance_alerted AND NEW.available < OLD.available THEN
      NEW.low_balance_alerted := true;
      v_id := gen_random_uuid();
      INSERT INTO "billing"."outbox" (id, pattern, payload)
      VALUES (v_id, 'account.low_balance', jsonb_build_object(
        'eventId', v_id,
        'event', 'account.low_balance',
        'accountId', NEW.account_id,
        'threshold', NEW.low_balance_threshold,
        'available', NEW.available,
        'crossedAt', to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')));
    END IF;
  ELSIF NEW.low_balance_alerted THEN
    NEW.low_balance_alerted := false;
  END IF;
  RETURN NEW;
END
$$;
