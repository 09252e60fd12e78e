import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import type { CliDatabase } from './context/cli-database';
import { MODELS } from './commands/models.commands';
import { runCommand } from './run-command';

/**
 * README, "Real models": on a fresh clone the first command is `models sync`, before `npm start` has
 * ever migrated the data folder; the CLI migrates standalone data first, as the server does. (The
 * embedded PostgreSQL cannot load inside jest, so a new database on the test server stands for the
 * new data folder's.)
 */
describe('a CLI command on new standalone data', () => {
  let database: TestDatabase;
  let stderr: string[];
  const saved = process.env.NATS_URL;

  beforeAll(async () => {
    database = await createTestDatabase('cli_first_run');
    delete process.env.NATS_URL;
  });
  beforeEach(() => {
    stderr = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    if (saved !== undefined) process.env.NATS_URL = saved;
    await database.drop();
  });

  const standalone = (): Promise<CliDatabase> =>
    Promise.resolve({ url: database.url, mode: 'standalone', dataDir: '/new/data', description: 'Standalone data: a new folder', embedded: null });

  it('models sync --file catalogues/replicate.json succeeds where nothing has migrated yet', async () => {
    const file = join(__dirname, '..', '..', '..', 'catalogues', 'replicate.json');
    const code = await runCommand(MODELS.commands.sync, { file }, standalone);
    expect(stderr.join('')).not.toContain('Failed');
    expect(stderr.join('')).toContain('Migrated the standalone data');
    expect(code).toBe(0);
    // A second command finds it migrated and says nothing of it.
    expect(await runCommand(MODELS.commands.list, {}, standalone)).toBe(0);
    expect(stderr.filter((line) => line.includes('Migrated'))).toHaveLength(1);
  }, 120_000);
});
