-- The given deliveries that are due, free and have an attempt left, claimed for their next attempt
-- (counted and recorded in flight before anything is sent); an earlier attempt left in flight by a
-- process that died is marked interrupted.
WITH candidates AS (
  SELECT id FROM deliveries
  WHERE id = ANY($1::text[]) AND status = 'pending' AND attempts_made < 3
    AND next_attempt_at <= $2::timestamptz + interval '15 milliseconds'
    AND (lease_until IS NULL OR lease_until <= $2)
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE deliveries d SET attempts_made = d.attempts_made + 1, lease_token = $3, lease_until = $4
  FROM candidates c WHERE d.id = c.id
  RETURNING d.id, d.job_id, d.account_id, d.api_key_id, d.event, d.url, d.body, d.attempts_made, d.next_attempt_at, d.test
), interrupted AS (
  UPDATE attempts a SET error_class = 'interrupted', error = $5
  FROM claimed c
  WHERE a.delivery_id = c.id AND a.number = c.attempts_made - 1 AND a.duration_ms IS NULL AND a.error_class IS NULL
), started AS (
  INSERT INTO attempts (delivery_id, number, started_at) SELECT id, attempts_made, $2 FROM claimed
)
SELECT * FROM claimed
