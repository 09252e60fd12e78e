-- The mean run time of the account's last 20 finished jobs, and the age of its oldest running one.
SELECT
  (SELECT avg(extract(epoch FROM recent.completed_at - recent.started_at)) FROM (
     SELECT completed_at, started_at FROM jobs
     WHERE account_id = $1 AND status IN ('completed', 'failed') AND started_at IS NOT NULL
     ORDER BY seq DESC LIMIT 20) recent) AS mean_run,
  (SELECT extract(epoch FROM now() - min(started_at)) FROM jobs
   WHERE account_id = $1 AND status = 'processing') AS oldest_running
