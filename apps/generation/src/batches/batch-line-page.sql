-- A page of a batch's results ($4 = 'results': lines whose job completed) or errors (every other final
-- line), in line order after line $2. Walks the batch's primary key from $2; joins each admitted line's job.
SELECT l.line, l.custom_id, l.state, l.job_id, l.error_code, l.error_message, j.status AS job_status, j.canceled_at AS job_canceled_at, j.error AS job_error
FROM batch_lines l
LEFT JOIN jobs j ON j.id = l.job_id AND l.state = 'admitted'
WHERE l.batch_id = $1 AND l.line > $2
  AND CASE WHEN $4::text = 'results' THEN j.status = 'completed'
           ELSE l.state IN ('invalid', 'failed', 'canceled', 'expired') OR j.status = 'failed' END
ORDER BY l.line
LIMIT $3
