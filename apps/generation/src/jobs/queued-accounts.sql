-- A loose index scan of jobs_queued (account_id, seq): one probe per account for its oldest queued
-- job, then the accounts by that job's seq (the one waiting longest first).
WITH RECURSIVE heads AS (
  (SELECT account_id, seq FROM jobs WHERE status = 'queued' ORDER BY account_id, seq LIMIT 1)
  UNION ALL
  SELECT next.account_id, next.seq FROM heads
  CROSS JOIN LATERAL (
    SELECT account_id, seq FROM jobs WHERE status = 'queued' AND account_id > heads.account_id
    ORDER BY account_id, seq LIMIT 1
  ) next
)
SELECT account_id FROM heads ORDER BY seq LIMIT $1
