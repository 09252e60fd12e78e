-- For each queued job of the account (by seq), how many of its queued jobs are ahead: one index range count each (jobs_queued).
SELECT s.seq, (SELECT count(*)::int FROM jobs WHERE account_id = $1 AND status = 'queued' AND seq < s.seq) AS ahead
FROM unnest($2::bigint[]) AS s(seq)
