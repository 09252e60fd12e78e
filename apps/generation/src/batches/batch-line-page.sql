-- A page of a batch's results ($4 = 'results': lines whose job completed) or errors (every other final
-- line), in line order after line $2. Walks the batch's primary key from $2; a line's outcome is on it
-- once settled, else its job's (joined only for lines not settled yet).
SELECT l.line, l.custom_id, l.state, l.job_id, l.error_code, l.error_message,
       COALESCE(l.outcome, CASE WHEN j.status = 'completed' THEN 'completed' WHEN j.canceled_at IS NOT NULL THEN 'canceled' WHEN j.status = 'failed' THEN 'failed' END) AS job_outcome
FROM batch_lines l
LEFT JOIN jobs j ON j.id = l.job_id AND l.state = 'admitted' AND l.outcome IS NULL
WHERE l.batch_id = $1 AND l.line > $2
  AND CASE WHEN $4::text = 'results' THEN l.outcome = 'completed' OR j.status = 'completed'
           ELSE l.state IN ('invalid', 'failed', 'canceled', 'expired') OR l.outcome IN ('failed', 'canceled') OR j.status = 'failed' END
ORDER BY l.line
LIMIT $3
