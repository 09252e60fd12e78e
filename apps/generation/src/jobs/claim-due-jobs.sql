-- Due parked jobs, oldest due first, leased to $1 while it checks them; another replica's are skipped (SKIP LOCKED).
-- Committed asynchronously, set by the statement itself (one round trip, no transaction around it).
UPDATE jobs SET lease_owner = $1, lease_expires_at = now() + ($2::int * interval '1 millisecond'), next_check_at = NULL
FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
WHERE id IN (
  SELECT id FROM jobs
  WHERE status = 'processing' AND next_check_at <= now() AND lease_owner IS NULL AND model_id <> ALL ($4::text[])
  ORDER BY next_check_at LIMIT $3 FOR UPDATE SKIP LOCKED)
AND status = 'processing' AND lease_owner IS NULL
RETURNING /*columns*/ jobs.*
