import { randomBytes } from 'node:crypto';
import { dropDatabase, ensureDatabase } from '@gen/persistence';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The server the suite runs against (jest's globalSetup sets it: embedded Postgres or TEST_DATABASE_URL). */
export function testAdminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL ?? process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run the tests through jest (globalSetup starts Postgres)');
  return url;
}

/** A fresh database with a unique name, dropped afterwards: test files never share state. */
export async function createTestDatabase(label = 'test'): Promise<TestDatabase> {
  const admin = testAdminUrl();
  const name = `gen_${label.replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, 20)}_${randomBytes(5).toString('hex')}`;
  await ensureDatabase(admin, name);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => dropDatabase(admin, name) };
}
