-- Back to the queue; the interrupted run does not count as an attempt.
UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = GREATEST(attempts - 1, 0)
WHERE id = ANY($2::uuid[]) AND status = 'processing' AND lease_owner = $1 RETURNING id
