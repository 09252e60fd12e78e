-- The first output (output_key, index jobs_output_key) or a later one (outputs, index jobs_more_outputs).
SELECT 1 FROM jobs WHERE output_key = $1 AND output_deleted_at IS NOT NULL
UNION ALL
(SELECT 1 FROM jobs WHERE jsonb_array_length(outputs) > 1 AND outputs @> jsonb_build_array(jsonb_build_object('key', $1::text))
   AND output_deleted_at IS NOT NULL LIMIT 1)
LIMIT 1
