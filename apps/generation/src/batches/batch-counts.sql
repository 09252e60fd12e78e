-- A batch's request_counts and credits charged. Lines carry their outcome once settled (an admitted
-- line's `outcome`, copied from its final job by the feeder; a line's price is its job's); only the
-- few admitted lines not settled yet are joined to their jobs (index batch_lines_unsettled). A job
-- failed with canceled_at is `canceled`.
WITH settled AS (
  SELECT count(*) AS total,
         count(*) FILTER (WHERE state = 'invalid') AS invalid,
         count(*) FILTER (WHERE state IN ('waiting', 'admitting')) AS waiting,
         count(*) FILTER (WHERE outcome = 'completed') AS completed,
         count(*) FILTER (WHERE state = 'failed' OR outcome = 'failed') AS failed,
         count(*) FILTER (WHERE state = 'canceled' OR outcome = 'canceled') AS canceled,
         count(*) FILTER (WHERE state = 'expired') AS expired,
         COALESCE(sum(credits) FILTER (WHERE outcome = 'completed'), 0) AS credits_charged
  FROM batch_lines WHERE batch_id = $1
), unsettled AS (
  SELECT count(*) FILTER (WHERE j.status = 'queued') AS queued,
         count(*) FILTER (WHERE j.status = 'processing') AS processing,
         count(*) FILTER (WHERE j.status = 'completed') AS completed,
         count(*) FILTER (WHERE j.status = 'failed' AND j.canceled_at IS NULL) AS failed,
         count(*) FILTER (WHERE j.status = 'failed' AND j.canceled_at IS NOT NULL) AS canceled,
         COALESCE(sum(j.credits) FILTER (WHERE j.status = 'completed'), 0) AS credits_charged
  FROM batch_lines l JOIN jobs j ON j.id = l.job_id
  WHERE l.batch_id = $1 AND l.state = 'admitted' AND l.outcome IS NULL
)
SELECT s.total, s.invalid, s.waiting, u.queued, u.processing,
       s.completed + u.completed AS completed, s.failed + u.failed AS failed, s.canceled + u.canceled AS canceled, s.expired,
       s.credits_charged + u.credits_charged AS credits_charged
FROM settled s, unsettled u
