-- Upstream references of many jobs, each stored only while its worker ($2) still holds the job.
UPDATE jobs SET upstream_ref = r.ref
FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(id, owner, ref)
WHERE jobs.id = r.id AND jobs.status = 'processing' AND jobs.lease_owner = r.owner
RETURNING jobs.id
