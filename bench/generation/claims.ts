import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openGenerationDatabase } from '@gen/generation';
// The claims repository itself (not part of generation's public surface): this benchmark measures its claims alone.
import { JobClaimsRepository } from '../../apps/generation/src/jobs/job-claims.repository';
import { dropDatabase, ensureDatabase, sqlRows } from '@gen/persistence';
import { deferCleanup } from '../support/cleanup';

export interface ClaimResult {
  name: string;
  workers: number;
  jobs: number;
  seconds: number;
  perSecond: number;
}

const LEASE_MS = 60_000;

/**
 * Job-claim throughput of the queue alone (no HTTP, no engine, no events), side by side with the
 * textbook `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED)` loop, on the same server.
 * Every worker claims, then marks the job done with the same one-row UPDATE in both, so the
 * difference is the claim: per-account slots and FIFO order (ours) against none (bare).
 */
export async function claimBenchmarks(pgAdminUrl: string, seconds: number, workers: number): Promise<ClaimResult[]> {
  const dbName = `gen_bench_claims_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(pgAdminUrl, dbName);
  const drop = deferCleanup(`database ${dbName}`, () => dropDatabase(pgAdminUrl, dbName));
  const url = new URL(pgAdminUrl);
  url.pathname = `/${dbName}`;
  let db: DataSource | undefined;
  try {
    db = await openGenerationDatabase(url.toString(), workers + 2);
    await db.query(`CREATE TABLE bare_jobs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      account_id uuid NOT NULL, prompt text NOT NULL, status text NOT NULL,
      lease_owner text, lease_expires_at timestamptz, output_key text, started_at timestamptz, completed_at timestamptz)`);
    await db.query(`CREATE INDEX bare_jobs_queued ON bare_jobs (id) WHERE status = 'queued'`);
    const repo = new JobClaimsRepository(db);
    const results: ClaimResult[] = [];
    results.push(await queueRun(db, repo, { name: 'queue: claim(), 100 accounts x 4 slots, 1 job per claim', accounts: 100, slots: 4, batch: 1 }, seconds, workers));
    results.push(await queueRun(db, repo, { name: 'queue: claim(), 1 account x 64 slots, up to 8 jobs per claim', accounts: 1, slots: 64, batch: 8 }, seconds, workers));
    results.push(await queueRun(db, repo, { name: 'queue: claim(), 1 account x 64 slots, 1 job per claim', accounts: 1, slots: 64, batch: 1 }, seconds, workers));
    results.push(await bareRun(db, seconds, workers));
    return results;
  } finally {
    await db?.destroy();
    await drop();
  }
}

interface QueueScenario {
  name: string;
  accounts: number;
  slots: number;
  batch: number;
}

/** Enough queued jobs that the workers never run dry within the measured time. */
const PREFILL = 40_000;

async function queueRun(db: DataSource, repo: JobClaimsRepository, scenario: QueueScenario, seconds: number, workers: number): Promise<ClaimResult> {
  await db.query('TRUNCATE jobs, account_slots');
  await db.query(
    `INSERT INTO jobs (id, account_id, api_key_id, model_id, type, prompt, status, credits, parallel_limit)
     SELECT gen_random_uuid(), accounts.id, accounts.id, 'pixel-flux-1', 'TEXT_TO_IMAGE', 'bench', 'queued', 4, $2
     FROM generate_series(1, $1) AS n
     JOIN (SELECT row_number() OVER () - 1 AS i, gen_random_uuid() AS id FROM generate_series(1, $3)) accounts ON accounts.i = n % $3
     ORDER BY n`,
    [PREFILL, scenario.slots, scenario.accounts],
  );
  await db.query('VACUUM ANALYZE jobs');

  let claimed = 0;
  let stop = false;
  const worker = async (index: number) => {
    const owner = `bench-${index}`;
    while (!stop) {
      const accounts = await repo.accountsWithQueuedJobs(100);
      if (accounts.length === 0) return;
      for (const accountId of accounts) {
        if (stop) return;
        for (const job of await repo.claim(accountId, owner, LEASE_MS, scenario.batch)) {
          await db.query(
            `UPDATE jobs SET status = 'completed', output_key = 'bench/x.png', completed_at = now(), lease_owner = NULL, lease_expires_at = NULL
             WHERE id = $1 AND lease_owner = $2`,
            [job.id, owner],
          );
          if (!stop) claimed++;
        }
      }
    }
  };
  return measure(scenario.name, workers, seconds, worker, () => claimed, () => (stop = true));
}

async function bareRun(db: DataSource, seconds: number, workers: number): Promise<ClaimResult> {
  await db.query(
    `INSERT INTO bare_jobs (account_id, prompt, status) SELECT gen_random_uuid(), 'bench', 'queued' FROM generate_series(1, $1)`,
    [PREFILL],
  );
  await db.query('VACUUM ANALYZE bare_jobs');
  let claimed = 0;
  let stop = false;
  const worker = async (index: number) => {
    const owner = `bench-${index}`;
    while (!stop) {
      const claimedRows = await sqlRows<{ id: string }>(
        db,
        `UPDATE bare_jobs SET status = 'processing', started_at = now(), lease_owner = $1, lease_expires_at = now() + interval '60 seconds'
         WHERE id = (SELECT id FROM bare_jobs WHERE status = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [owner],
      );
      if (claimedRows.length === 0) return;
      await db.query(
        `UPDATE bare_jobs SET status = 'completed', output_key = 'bench/x.png', completed_at = now(), lease_owner = NULL, lease_expires_at = NULL
         WHERE id = $1 AND lease_owner = $2`,
        [claimedRows[0].id, owner],
      );
      if (!stop) claimed++;
    }
  };
  return measure('bare: UPDATE ... (SELECT ... FOR UPDATE SKIP LOCKED), no slots, 1 job per claim', workers, seconds, worker, () => claimed, () => (stop = true));
}

async function measure(
  name: string,
  workers: number,
  seconds: number,
  worker: (index: number) => Promise<void>,
  count: () => number,
  halt: () => void,
): Promise<ClaimResult> {
  const started = performance.now();
  const running = Array.from({ length: workers }, (_, i) => worker(i));
  const timer = new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));
  await Promise.race([timer, Promise.all(running)]);
  const elapsed = (performance.now() - started) / 1000;
  const jobs = count();
  halt();
  await Promise.all(running);
  return { name, workers, jobs, seconds: elapsed, perSecond: jobs / elapsed };
}
