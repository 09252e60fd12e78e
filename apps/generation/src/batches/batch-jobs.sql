-- The account's jobs of these ids (a page of a batch's results or errors).
SELECT /*columns*/ j.* FROM jobs j WHERE j.account_id = $1 AND j.id = ANY($2::uuid[])
