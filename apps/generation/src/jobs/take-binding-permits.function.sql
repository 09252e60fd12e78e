-- Up to p_want request permits of the binding's current one-second window (p_rate per second), none
-- while its shared backoff lasts. Returns the permits granted and the backoff's end.
CREATE OR REPLACE FUNCTION "generation"."take_binding_permits"(p_binding text, p_rate int, p_want int)
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
END $$;
