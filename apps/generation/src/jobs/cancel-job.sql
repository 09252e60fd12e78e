-- Fails an unfinished job of the account as canceled; says whether it was running (leased) or parked.
WITH before AS (SELECT id, status, lease_owner FROM jobs WHERE id = $1 AND account_id = $2 FOR UPDATE)
UPDATE jobs SET status = 'failed', error = $3, completed_at = now(), canceled_at = now(),
       lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL
FROM before
WHERE jobs.id = before.id AND before.status IN ('queued', 'processing')
RETURNING /*columns*/ jobs.*, before.status = 'processing' AS was_processing,
          before.status = 'processing' AND before.lease_owner IS NULL AS was_parked
