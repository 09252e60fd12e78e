import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@gen/persistence';
import { deferCleanup } from '../support/cleanup';
import { AppProcess } from '../support/processes';

/** Connections of the floor's pg pool: the gateway's default DATABASE_POOL_SIZE. */
const FLOOR_POOL_SIZE = 20;

export interface Floor {
  url: string;
  /** One balance row per account (the POST floor's rows), in the order of the service's accounts. */
  accountIds: string[];
  stop(): Promise<void>;
}

/**
 * Makes the floor's tables in the service's database, then starts floor-server.js on them:
 * `bench_floor.jobs` has generation.jobs' definition (columns, indexes, constraints) and a copy of
 * its rows, so the floor reads the same rows the service reads; `bench_floor.accounts` has one
 * balance row per account. The schema goes when the run drops the database.
 */
export async function startFloor(databaseUrl: string, accounts: number): Promise<Floor> {
  const accountIds = Array.from({ length: accounts }, () => randomUUID());
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CREATE SCHEMA bench_floor');
    await client.query('CREATE TABLE bench_floor.jobs (LIKE generation.jobs INCLUDING ALL)');
    await client.query('INSERT INTO bench_floor.jobs OVERRIDING SYSTEM VALUE SELECT * FROM generation.jobs');
    await client.query('CREATE TABLE bench_floor.accounts (id uuid PRIMARY KEY, available bigint NOT NULL CHECK (available >= 0))');
    await client.query('INSERT INTO bench_floor.accounts SELECT unnest($1::uuid[]), 1000000000000', [accountIds]);
    await client.query('ANALYZE bench_floor.jobs, bench_floor.accounts');
  } finally {
    await client.end();
  }
  const port = await freePort();
  const server = new AppProcess('floor', join('bench', 'api', 'floor-server.js'), {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    POOL_SIZE: String(FLOOR_POOL_SIZE),
  });
  server.start();
  const stop = deferCleanup('floor server', () => server.stop());
  try {
    await server.waitFor(/floor listening at/, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, accountIds, stop };
}
