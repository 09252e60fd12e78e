import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { openGenerationDatabase } from '@gen/generation';
import { dropDatabase, ensureDatabase, freePort } from '@gen/persistence';
import { deferCleanup, undoAll } from '../support/cleanup';
import { databaseUrl } from '../support/modes';
import { AppProcess } from '../support/processes';

/** Connections of the floor's pg pool: the gateway's default DATABASE_POOL_SIZE. */
const FLOOR_POOL_SIZE = 20;

export interface Floor {
  url: string;
  /** One balance row per account (the POST floor's rows), in the order of the service's accounts. */
  accountIds: string[];
  /** The floor server's process id (its CPU time is read from /proc). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A database of the floor's own on the same server (so the service's database counts only the
 * service's transactions), then floor-server.js on it: `generation.jobs` made by the generation
 * service's own migrations (the same definition, indexes and constraints) holding a copy of the
 * service's job rows, so the floor reads the rows the service reads; `floor_accounts` with one
 * balance row per account.
 */
export async function startFloor(adminUrl: string, serviceDatabaseUrl: string, accounts: number): Promise<Floor> {
  const name = `gen_bench_floor_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(adminUrl, name);
  const accountIds = Array.from({ length: accounts }, () => randomUUID());
  await ensureDatabase(adminUrl, name);
  const undo = [deferCleanup(`database ${name}`, () => dropDatabase(adminUrl, name))];
  try {
    await (await openGenerationDatabase(url, 2)).destroy();
    const jobs = await withClient(serviceDatabaseUrl, async (c) => (await c.query<{ rows: string }>(`SELECT coalesce(json_agg(j), '[]')::text AS rows FROM generation.jobs j`)).rows[0].rows);
    await withClient(url, async (c) => {
      await c.query('INSERT INTO generation.jobs OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::generation.jobs, $1::json)', [jobs]);
      await c.query('CREATE TABLE floor_accounts (id uuid PRIMARY KEY, available bigint NOT NULL CHECK (available >= 0))');
      await c.query('INSERT INTO floor_accounts SELECT unnest($1::uuid[]), 1000000000000', [accountIds]);
      await c.query('ANALYZE generation.jobs, floor_accounts');
    });
    const port = await freePort();
    const server = new AppProcess('floor', join('bench', 'api', 'floor-server.js'), {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: url,
      PORT: String(port),
      POOL_SIZE: String(FLOOR_POOL_SIZE),
    });
    server.start();
    undo.push(deferCleanup('floor server', () => server.stop()));
    await server.waitFor(/floor listening at/, 30_000);
    return { url: `http://127.0.0.1:${port}`, accountIds, get pid() { return server.pid; }, stop: () => undoAll(undo) };
  } catch (error) {
    await undoAll(undo);
    throw error;
  }
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
