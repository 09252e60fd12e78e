-- Deliveries whose third attempt was interrupted (lease expired, nothing recorded): failed, the attempt marked interrupted.
WITH exhausted AS (
  SELECT id FROM deliveries
  WHERE status = 'pending' AND attempts_made >= 3 AND lease_until <= $1
  ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
), failed AS (
  UPDATE deliveries d SET status = 'failed', next_attempt_at = NULL, finished_at = $1, lease_token = NULL, lease_until = NULL
  FROM exhausted e WHERE d.id = e.id
  RETURNING d.id, d.job_id, d.account_id, d.event, d.url, d.attempts_made
), interrupted AS (
  UPDATE attempts a SET error_class = 'interrupted', error = $3
  FROM failed f WHERE a.delivery_id = f.id AND a.number = f.attempts_made AND a.duration_ms IS NULL AND a.error_class IS NULL
)
SELECT id, job_id, account_id, event, url FROM failed
