import { ConfigError } from '@gen/config';
import { runPendingMigrations, ServiceDatabaseOptions } from './service-data-source';

/**
 * One service's migration job without the operator CLI: what a per-service image's init container
 * runs (`node dist/apps/<service>/src/migrate.js`). Only that service's schema, under its advisory
 * lock; the result on stdout as JSON in the shape of `cli migrate --json` ({ applied: { schema: [...] } }).
 * Exit codes as the CLI's: 0 done, 2 a bad setting (DATABASE_URL missing), 3 failed.
 */
export async function runMigrationEntry(
  databaseOptions: (url: string) => ServiceDatabaseOptions,
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Promise<number> {
  const url = env.DATABASE_URL;
  if (!url) {
    process.stderr.write('Error (validation_error): DATABASE_URL is required (the owner role of the service schema)\n');
    return 2;
  }
  try {
    const options = databaseOptions(url);
    write(JSON.stringify({ applied: { [options.schema]: await runPendingMigrations(options) } }));
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${error instanceof ConfigError ? 'Error (validation_error)' : 'Failed'}: ${message}\n`);
    return error instanceof ConfigError ? 2 : 3;
  }
}

/** Runs runMigrationEntry as a process's main and exits with its code. */
export function migrationMain(databaseOptions: (url: string) => ServiceDatabaseOptions): void {
  void runMigrationEntry(databaseOptions).then((code) => process.exit(code));
}
