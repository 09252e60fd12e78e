-- Woken: due now. A job checked or collected right now, or final, is not parked; no row: no such job.
WITH woken AS (
  UPDATE jobs SET next_check_at = now() WHERE id = $1 AND status = 'processing' AND next_check_at IS NOT NULL RETURNING id
)
SELECT EXISTS (SELECT 1 FROM woken) AS parked FROM jobs WHERE id = $1
