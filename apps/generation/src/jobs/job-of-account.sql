SELECT /*columns*/ jobs.* FROM jobs WHERE id = $1 AND account_id = $2
