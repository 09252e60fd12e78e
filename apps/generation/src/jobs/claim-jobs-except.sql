SELECT /*columns*/ c.* FROM claim_jobs_except($1::uuid, $2::text, $3::int, $4::int, $5::text[]) AS c
