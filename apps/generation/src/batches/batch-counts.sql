-- A batch's request_counts and credits charged: its lines, and the jobs of the admitted ones (a line's
-- outcome is its job's; a job failed with canceled_at is `canceled`). One pass over the batch's lines.
SELECT count(*) AS total,
       count(*) FILTER (WHERE l.state = 'invalid') AS invalid,
       count(*) FILTER (WHERE l.state IN ('waiting', 'admitting')) AS waiting,
       count(*) FILTER (WHERE j.status = 'queued') AS queued,
       count(*) FILTER (WHERE j.status = 'processing') AS processing,
       count(*) FILTER (WHERE j.status = 'completed') AS completed,
       count(*) FILTER (WHERE l.state = 'failed' OR (j.status = 'failed' AND j.canceled_at IS NULL)) AS failed,
       count(*) FILTER (WHERE l.state = 'canceled' OR (j.status = 'failed' AND j.canceled_at IS NOT NULL)) AS canceled,
       count(*) FILTER (WHERE l.state = 'expired') AS expired,
       COALESCE(sum(j.credits) FILTER (WHERE j.status = 'completed'), 0) AS credits_charged
FROM batch_lines l
LEFT JOIN jobs j ON j.id = l.job_id AND l.state = 'admitted'
WHERE l.batch_id = $1
