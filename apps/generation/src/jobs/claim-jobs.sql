SELECT /*columns*/ c.* FROM claim_jobs($1::uuid, $2::text, $3::int, $4::int) AS c
