import { Client, ClientConfig } from 'pg';
import { DataSource, MixedList, EntitySchema } from 'typeorm';
import { ConfigError } from '@gen/config';
import { pgErrorCode } from './statements/pg-errors';

/** PostgreSQL's "invalid_catalog_name": the database named in the URL does not exist. */
const PG_DATABASE_MISSING = '3D000';

/**
 * The database DATABASE_URL names does not exist: a configuration problem with a one-line fix, told
 * as such (no stack trace), whichever service or command met it first.
 */
export class MissingDatabaseError extends ConfigError {
  constructor(url: string) {
    let where = 'the PostgreSQL server';
    let name = '';
    try {
      const parsed = new URL(url);
      where = parsed.host;
      name = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    } catch {
      // keep the generic wording
    }
    super([
      `DATABASE_URL names the database "${name}", which does not exist on ${where}. Create it first: ` +
        `npm run cli -- migrate --create-database (with the same DATABASE_URL), or CREATE DATABASE "${name}" as a user allowed to.`,
    ]);
    this.name = 'MissingDatabaseError';
  }
}

/** Connects a DataSource; a database that does not exist is a MissingDatabaseError. */
async function initialize(dataSource: DataSource, url: string): Promise<void> {
  try {
    await dataSource.initialize();
  } catch (error) {
    if (pgErrorCode(error) === PG_DATABASE_MISSING) throw new MissingDatabaseError(url);
    throw error;
  }
}

/**
 * A pool client that always has an 'error' listener. The pool listens only to the clients it holds idle;
 * TypeORM's query runners take a client out without listening. When the server ends a session that is
 * checked out but between statements (a fast shutdown's 57P01, a terminated backend), `pg` emits
 * 'error' on the client, and with no listener that is an uncaught exception: the whole process would
 * fall over. Here the error is left to whoever uses the client next: its next statement fails as a
 * lost connection (503 with Retry-After, or retried where that is safe), and the pool drops the client
 * when it is released.
 */
export class ListenedClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

export interface ServiceDatabaseOptions {
  url: string;
  /** The service's own Postgres schema (`auth`, `billing`, `generation`, `webhooks`). */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
  poolSize?: number;
  applicationName?: string;
}

/**
 * One DataSource per service: its own schema, its own migrations and migrations table, never
 * `synchronize`. Standalone mode opens the four of them on one embedded database.
 */
export function createServiceDataSource(options: ServiceDatabaseOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
    applicationName: options.applicationName ?? `gen-${options.schema}`,
    // Raw SQL in repositories names tables without the schema: search_path makes that the service's own.
    extra: {
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 10_000,
      options: `-c search_path="${options.schema}"`,
      Client: ListenedClient,
    },
  });
}

/**
 * `run`: apply pending migrations at start (the default; fine for one replica or standalone).
 * `verify`: apply nothing and refuse to start while migrations are pending (deployments where the
 * migration job runs them first and the services' database roles need no DDL rights).
 */
export type MigrationsMode = 'run' | 'verify';

export class PendingMigrationsError extends Error {
  constructor(schema: string) {
    super(`Schema "${schema}" has pending migrations: run the migration job (cli migrate) first, or set MIGRATIONS=run.`);
    this.name = 'PendingMigrationsError';
  }
}

/**
 * Connects, creates the schema if needed and applies pending migrations, holding an advisory lock
 * so that replicas starting together do not run the same migration twice.
 */
export async function openServiceDataSource(options: ServiceDatabaseOptions, mode: MigrationsMode = 'run'): Promise<DataSource> {
  const dataSource = createServiceDataSource(options);
  await initialize(dataSource, options.url);
  try {
    if (mode === 'run') await migrateWithLock(dataSource, options.schema);
    else if (await hasPendingMigrations(dataSource)) throw new PendingMigrationsError(options.schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

/** How often a replica waiting for another's migrations tries the lock again. */
const MIGRATION_LOCK_RETRY_MS = 200;

/**
 * Applies pending migrations under the schema's advisory lock; returns the names of those applied.
 * The lock is waited for with short tries, not one blocking `pg_advisory_lock`: a session blocked in
 * that call holds a snapshot all along, and a migration that builds an index CONCURRENTLY waits for
 * every older snapshot to end, so the replica migrating would wait for the one waiting for it.
 */
export async function migrateWithLock(dataSource: DataSource, schema: string): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    while (!((await runner.query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [`gen-migrations:${schema}`])) as Array<{ locked: boolean }>)[0]?.locked) {
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
    }
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`gen-migrations:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}

/** True when the schema lacks a migration this build knows (its migrations table is missing or behind). */
export async function hasPendingMigrations(dataSource: DataSource): Promise<boolean> {
  return dataSource.showMigrations();
}

/** Applies a schema's pending migrations on a short-lived connection (the migration job); returns their names. */
export async function runPendingMigrations(options: ServiceDatabaseOptions): Promise<string[]> {
  const dataSource = createServiceDataSource({ ...options, poolSize: 2 });
  await initialize(dataSource, options.url);
  try {
    return await migrateWithLock(dataSource, options.schema);
  } finally {
    await dataSource.destroy();
  }
}
