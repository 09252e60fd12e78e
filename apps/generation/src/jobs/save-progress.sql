-- Committed asynchronously, set by the statement itself (one round trip, no transaction around it).
UPDATE jobs SET progress = p.value
FROM unnest($2::uuid[], $3::real[]) AS p(id, value), (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
WHERE jobs.id = p.id AND jobs.status = 'processing' AND jobs.lease_owner = $1
