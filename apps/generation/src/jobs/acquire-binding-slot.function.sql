-- One slot for the job unless the binding's jobs in flight already reach p_max; true when the job
-- holds one (already, or now). Under the binding's advisory lock (0x736c6f74 'slot'), so replicas
-- never exceed it together; slots of jobs no longer processing are not counted.
CREATE OR REPLACE FUNCTION "generation"."acquire_binding_slot"(p_binding text, p_job uuid, p_max int)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  v_used int;
BEGIN
  PERFORM pg_advisory_xact_lock(1936486260, hashtext(p_binding));
  IF EXISTS (SELECT 1 FROM "generation"."binding_slots" WHERE job_id = p_job) THEN RETURN true; END IF;
  SELECT count(*) INTO v_used FROM "generation"."binding_slots" s
    JOIN "generation"."jobs" j ON j.id = s.job_id AND j.status = 'processing'
    WHERE s.binding = p_binding;
  IF v_used >= p_max THEN RETURN false; END IF;
  INSERT INTO "generation"."binding_slots" (job_id, binding) VALUES (p_job, p_binding);
  RETURN true;
END $$;
