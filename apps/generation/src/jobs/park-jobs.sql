-- The upstream clock starts at the first park after a submit (kept on a later attach); the next
-- check is never later than the upstream deadline, so a job past it is failed on time. A check
-- replaces the provider's queue position (none read: the job left the queue); a park without a check keeps it.
-- Committed asynchronously, set by the statement itself (one round trip, no transaction around it).
WITH p AS (
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::boolean[], $6::real[], $7::int[])
    AS p(id, owner, delay_ms, total_ms, checked, progress, queue_position)
), locked AS (
  SELECT jobs.id FROM jobs JOIN p ON p.id = jobs.id
  WHERE jobs.status = 'processing' AND jobs.lease_owner = p.owner ORDER BY jobs.id FOR UPDATE OF jobs
)
UPDATE jobs SET lease_owner = NULL, lease_expires_at = NULL,
       upstream_at = CASE WHEN p.total_ms IS NULL THEN jobs.upstream_at ELSE COALESCE(jobs.upstream_at, now()) END,
       upstream_deadline_at = CASE WHEN p.total_ms IS NULL THEN jobs.upstream_deadline_at
                                   ELSE COALESCE(jobs.upstream_deadline_at, now() + p.total_ms * interval '1 millisecond') END,
       upstream_checks = CASE WHEN p.checked THEN jobs.upstream_checks + 1 ELSE jobs.upstream_checks END,
       next_check_at = LEAST(now() + p.delay_ms * interval '1 millisecond',
                             COALESCE(jobs.upstream_deadline_at, now() + COALESCE(p.total_ms, 2147483647) * interval '1 millisecond')),
       progress = COALESCE(p.progress, jobs.progress),
       upstream_queue_position = CASE WHEN p.checked THEN p.queue_position ELSE COALESCE(p.queue_position, jobs.upstream_queue_position) END
FROM p, (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
WHERE jobs.id = p.id AND jobs.id IN (SELECT id FROM locked) AND jobs.status = 'processing' AND jobs.lease_owner = p.owner
RETURNING jobs.id
