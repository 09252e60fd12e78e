import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { connect } from 'nats';

/**
 * Checks, once per run, that the shared servers and the build are there, so a missing piece fails
 * in one clear line instead of as start-up timeouts in every file. Creates nothing: each test file
 * makes (and removes) its own database, subject prefix, stream and folders.
 */
export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..', '..');
  for (const app of ['gateway', 'billing', 'generation', 'webhooks']) {
    const main = join(root, 'dist', 'apps', app, 'src', 'main.js');
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` (npm run test:distributed does).`);
  }

  const pgUrl = process.env.TEST_PG_ADMIN_URL as string;
  const pg = new Client({ connectionString: pgUrl, connectionTimeoutMillis: 5_000 });
  try {
    await pg.connect();
    await pg.query('SELECT 1');
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${redact(pgUrl)} (set DIST_DATABASE_URL): ${(error as Error).message}`);
  } finally {
    await pg.end().catch(() => undefined);
  }

  const natsUrl = process.env.DIST_NATS_URL as string;
  try {
    const nc = await connect({ servers: natsUrl, timeout: 5_000 });
    try {
      await (await nc.jetstreamManager()).getAccountInfo();
    } finally {
      await nc.close();
    }
  } catch (error) {
    throw new Error(`NATS with JetStream is not reachable at ${natsUrl} (set DIST_NATS_URL): ${(error as Error).message}`);
  }
}

function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}
