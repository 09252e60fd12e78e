-- Many (job id, account id) pairs in one statement, each with how many of its account's queued jobs
-- are ahead of it while it is queued (the index range count of queue-positions.sql).
SELECT /*columns*/ jobs.*,
       CASE WHEN jobs.status = 'queued' THEN
         (SELECT count(*)::int FROM jobs q WHERE q.account_id = jobs.account_id AND q.status = 'queued' AND q.seq < jobs.seq)
       END AS ahead
FROM unnest($1::uuid[], $2::uuid[]) AS p(id, account_id)
JOIN jobs ON jobs.id = p.id AND jobs.account_id = p.account_id
