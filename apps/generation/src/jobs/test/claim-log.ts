import type { DataSource } from 'typeorm';

/**
 * Test instrument for the claim's order guarantee: every statement that moves jobs from queued to
 * processing (a worker's claim, or an admission's) logs them, in its own transaction while it holds
 * the account's lock, so the log's order is the order the claims were decided in. The answers of
 * two claims made one right after the other may reach their callers in either order.
 */
export async function installClaimLog(db: DataSource): Promise<void> {
  await db.query(`CREATE TABLE claim_log (n bigserial PRIMARY KEY, job_ids uuid[] NOT NULL)`);
  await db.query(`
    CREATE FUNCTION log_claims() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO claim_log (job_ids)
      SELECT array_agg(claimed.id ORDER BY claimed.seq) FROM claimed JOIN before ON before.id = claimed.id
      WHERE before.status = 'queued' AND claimed.status = 'processing'
      HAVING count(*) > 0;
      RETURN NULL;
    END $$`);
  await db.query(`CREATE TRIGGER log_claims AFTER UPDATE ON jobs REFERENCING OLD TABLE AS before NEW TABLE AS claimed FOR EACH STATEMENT EXECUTE FUNCTION log_claims()`);
}

/** The ids among `jobIds` in the order they were claimed. */
export async function claimOrder(db: DataSource, jobIds: readonly string[]): Promise<string[]> {
  const mine = new Set(jobIds);
  const logged = (await db.query(`SELECT job_ids FROM claim_log ORDER BY n`)) as Array<{ job_ids: string[] }>;
  return logged.flatMap((row) => row.job_ids).filter((id) => mine.has(id));
}
