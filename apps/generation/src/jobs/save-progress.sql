UPDATE jobs SET progress = p.value
FROM unnest($2::uuid[], $3::real[]) AS p(id, value)
WHERE jobs.id = p.id AND jobs.status = 'processing' AND jobs.lease_owner = $1
