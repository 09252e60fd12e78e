import { randomBytes } from 'node:crypto';
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
