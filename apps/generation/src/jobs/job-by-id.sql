SELECT /*columns*/ jobs.* FROM jobs WHERE id = $1
