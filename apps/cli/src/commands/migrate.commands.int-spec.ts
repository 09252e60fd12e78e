import { Client } from 'pg';
import { webhooksDatabaseOptions } from '@gen/webhooks';
import { runMigrationEntry } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import type { CliDatabase } from '../context/cli-database';
import { EXIT } from '../context/command-spec';
import { runCommand } from '../run-command';
import { MIGRATE } from './migrate.commands';

const migrate = MIGRATE.commands[''];

/** The service schemas (and their migrations tables) present in a database. */
async function schemas(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string }>(
      `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'migrations' ORDER BY 1`,
    );
    return rows.map((r) => r.schema);
  } finally {
    await client.end();
  }
}

/** Each Deployment migrates only its own schema: `migrate --service` and the per-service entry (apps/<service>/src/migrate.ts). */
describe('migrate --service', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase('migratesvc');
  });
  afterEach(() => db.drop());

  it('migrates only the billing schema on a fresh database, and plain migrate then does the other three', async () => {
    const outputs: unknown[] = [];
    const database = { url: db.url, mode: 'server', dataDir: null, description: '', embedded: null } satisfies CliDatabase;
    await migrate.run({ service: 'billing' }, { database, out: (_human, data) => outputs.push(data) });
    expect(await schemas(db.url)).toEqual(['billing']);
    expect(Object.keys((outputs[0] as { applied: object }).applied)).toEqual(['billing']);
    await migrate.run({}, { database, out: (_human, data) => outputs.push(data) });
    expect(await schemas(db.url)).toEqual(['auth', 'billing', 'generation', 'webhooks']);
    expect((outputs[1] as { applied: Record<string, string[]> }).applied.billing).toEqual([]);
  });

  it('refuses an unknown service name with a usage error (exit 2), touching nothing', async () => {
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = db.url;
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await runCommand(migrate, { service: 'payments' })).toBe(EXIT.usage);
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toContain('--service must be one of gateway, billing, generation, webhooks');
    } finally {
      stderr.mockRestore();
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
    expect(await schemas(db.url)).toEqual([]);
  });

  it("a service's own migration entry migrates its schema only and prints JSON like the CLI's", async () => {
    const lines: string[] = [];
    expect(await runMigrationEntry((url) => webhooksDatabaseOptions(url), { DATABASE_URL: db.url }, (l) => lines.push(l))).toBe(0);
    expect(await schemas(db.url)).toEqual(['webhooks']);
    const { applied } = JSON.parse(lines[0]) as { applied: Record<string, string[]> };
    expect(Object.keys(applied)).toEqual(['webhooks']);
    expect(applied.webhooks.length).toBeGreaterThan(0);
  });
});
