-- Trigger of `models`: every statement that changes the catalogue is announced at its commit on
-- `gen_catalogue_changed`, and every replica listening reads the catalogue again.
CREATE OR REPLACE FUNCTION "generation"."announce_catalogue_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('gen_catalogue_changed', '');
  RETURN NULL;
END $$;
