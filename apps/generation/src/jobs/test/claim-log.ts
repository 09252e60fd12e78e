import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../../generation.database';
import { jobStore, JobStore } from './job-store';

export interface ClaimReplicas {
  /** Three DataSources on one migrated database, standing for three generation replicas. */
  readonly replicas: DataSource[];
  /** A repository on the first replica. */
  readonly repo: JobStore;
}

/**
 * A claim spec's database (created before the file's tests, with the claim log installed, dropped
 * after them) and three replicas on it. Call it at the top of a describe block.
 */
export function claimReplicas(label: string): ClaimReplicas {
  let database: TestDatabase | undefined;
  const replicas: DataSource[] = [];
  let repo: JobStore | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(label);
    for (let i = 0; i < 3; i++) replicas.push(await openGenerationDatabase(database.url, 12));
    repo = jobStore(replicas[0]);
    await installClaimLog(replicas[0]);
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.destroy()));
    await database?.drop();
  });
  return {
    replicas,
    get repo() {
      if (!repo) throw new Error('claimReplicas: used outside a test');
      return repo;
    },
  };
}

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
