-- Final states for a batch of jobs, one array per column of f (FINISH_COLUMNS): only a job still
-- queued or processing, and held by f.owner when one is given.
UPDATE jobs SET status = f.status, output_key = f.output_key, output_content_type = f.content_type, error = f.error,
       completed_at = now(), lease_owner = NULL, lease_expires_at = NULL, next_check_at = NULL,
       canceled_at = CASE WHEN f.canceled THEN now() END,
       progress = CASE WHEN f.status = 'completed' THEN 1 ELSE jobs.progress END,
       output_expires_at = now() + (f.keep_seconds * interval '1 second'),
       outputs = COALESCE(f.outputs, jobs.outputs)
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::int[], $9::jsonb[])
     AS f(id, owner, status, output_key, content_type, error, canceled, keep_seconds, outputs)
WHERE jobs.id = f.id AND jobs.status IN ('queued', 'processing') AND (f.owner IS NULL OR jobs.lease_owner = f.owner)
RETURNING /*columns*/ jobs.*
