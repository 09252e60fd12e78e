import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { ConfigError } from '@gen/config';
import { createDatabaseIfMissing, dropDatabase } from './embedded-postgres';
import { MissingDatabaseError, openServiceDataSource } from './service-data-source';

/**
 * The suite's server, as jest's globalSetup names it (read here rather than through @gen/testing's
 * testAdminUrl: @gen/testing builds on this lib, and a spec importing it would make a cycle).
 */
const adminUrl = () => String(process.env.TEST_PG_ADMIN_URL);

/** A database that does not exist (yet) on the suite's server. */
function missingDatabaseUrl(): { name: string; url: string } {
  const name = `gen_missing_${randomBytes(5).toString('hex')}`;
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

describe('a database that does not exist', () => {
  it('is a configuration error naming the database and the fix, not a stack trace', async () => {
    const { name, url } = missingDatabaseUrl();
    const opening = openServiceDataSource({ url, schema: 'auth', entities: [], migrations: [] });
    await expect(opening).rejects.toBeInstanceOf(MissingDatabaseError);
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(`DATABASE_URL names the database "${name}", which does not exist`);
    await expect(opening).rejects.toThrow('npm run cli -- migrate --create-database');
  });

  it('is created by createDatabaseIfMissing, once', async () => {
    const { name, url } = missingDatabaseUrl();
    try {
      expect(await createDatabaseIfMissing(url)).toBe(true);
      expect(await createDatabaseIfMissing(url)).toBe(false);
      const dataSource = await openServiceDataSource({ url, schema: 'auth', entities: [], migrations: [] });
      await dataSource.destroy();
    } finally {
      await dropDatabase(adminUrl(), name);
    }
  });
});

describe('a session the server ends while its client is checked out between statements', () => {
  // TypeORM's query runners listen to their client, but its driver takes clients straight from the pool
  // too (obtainMasterConnection, at start), as the pool's own users may: such a client has no listener.
  it('is no uncaught error: the next statement fails, and the pool serves on a fresh session', async () => {
    const name = `gen_ended_${randomBytes(5).toString('hex')}`;
    const url = new URL(adminUrl());
    url.pathname = `/${name}`;
    await createDatabaseIfMissing(url.toString());
    const dataSource = await openServiceDataSource({ url: url.toString(), schema: 'auth', entities: [], migrations: [] });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    // An 'error' event nobody listens to is thrown from the socket's handler: caught here to be named.
    process.prependListener('uncaughtException', onUncaught);
    try {
      const pool = (dataSource.driver as unknown as { master: Pool }).master;
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await dataSource.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(uncaught).toEqual([]);
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      process.removeListener('uncaughtException', onUncaught);
      await dataSource.destroy();
      await dropDatabase(adminUrl(), name);
    }
  });
});
