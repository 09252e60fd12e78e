-- Extends the leases $1 still holds among the jobs $2; for each job: still owned, or finished.
WITH extended AS (
  UPDATE jobs SET lease_expires_at = now() + ($3::int * interval '1 millisecond')
  WHERE id = ANY($2::uuid[]) AND status = 'processing' AND lease_owner = $1 RETURNING id
)
SELECT jobs.id, jobs.id IN (SELECT id FROM extended) AS owned, jobs.status IN ('completed', 'failed') AS finished
FROM jobs WHERE jobs.id = ANY($2::uuid[])
