import { DataSource, MixedList, EntitySchema } from 'typeorm';

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
    extra: { max: options.poolSize ?? 10, connectionTimeoutMillis: 10_000, options: `-c search_path="${options.schema}"` },
  });
}

/**
 * Connects, creates the schema if needed and applies pending migrations, holding an advisory lock
 * so that replicas starting together do not run the same migration twice.
 */
export async function openServiceDataSource(options: ServiceDatabaseOptions): Promise<DataSource> {
  const dataSource = createServiceDataSource(options);
  await dataSource.initialize();
  try {
    await migrateWithLock(dataSource, options.schema);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

export async function migrateWithLock(dataSource: DataSource, schema: string): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`gen-migrations:${schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`gen-migrations:${schema}`]).catch(() => undefined);
    await runner.release();
  }
}
