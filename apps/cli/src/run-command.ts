import { ConfigError } from '@gen/config';
import { DomainError } from '@gen/errors';
import { pgErrorCode } from '@gen/persistence';
import { resolveCliDatabase } from './context/cli-database';
import { readCliDatabaseSettings, readSettings } from './context/cli.settings';
import { CommandSpec, EXIT, Options, Out } from './context/command-spec';
import { migrateEverySchema } from './commands/migrate.commands';
import { checkIds } from './context/option-parsers';

async function migrateStandalone(url: string): Promise<void> {
  const applied = Object.values(await migrateEverySchema(url)).flat();
  if (applied.length > 0) process.stderr.write(`Migrated the standalone data (${applied.length} migrations).\n`);
}

/**
 * Runs one parsed command against its data (DATABASE_URL, or the standalone data folder) and says how
 * it ended: 0 done, 1 refused (a domain error: not found, conflict, ...), 2 a bad value, 3 failed
 * (the database unreachable, a bug). Errors go to stderr, and as JSON to stdout with --json.
 */
export async function runCommand(spec: CommandSpec, options: Options, resolve: typeof resolveCliDatabase = resolveCliDatabase): Promise<number> {
  const json = options.json === true;
  const out: Out = (human, data) => process.stdout.write((json ? JSON.stringify(data, null, 2) : human) + '\n');
  const refuse = (code: string, message: string, exit: number) => {
    process.stderr.write(`Error (${code}): ${message}\n`);
    if (json) process.stdout.write(JSON.stringify({ error: { code, message } }, null, 2) + '\n');
    return exit;
  };
  try {
    checkIds(options);
    const where = readSettings(readCliDatabaseSettings);
    await spec.prepare?.(options, where);
    const database = await resolve(where, { mayCreate: spec.mayCreateData === true });
    // Which data the command works on, on stderr (stdout stays the command's output, --json included).
    process.stderr.write(`${database.description}\n`);
    try {
      // Standalone data is migrated as `npm start` does (MIGRATIONS=run), so a command on a new or
      // older data folder finds every schema (a no-op when they are up to date). A server's
      // (DATABASE_URL) migrations are the migration job's: commands there apply nothing.
      if (database.mode === 'standalone') await migrateStandalone(database.url);
      await spec.run(options, { database, out });
      return EXIT.ok;
    } finally {
      if (database.embedded) await database.embedded.stop();
    }
  } catch (error) {
    if (error instanceof DomainError) return refuse(error.code, error.message, error.code === 'validation_error' ? EXIT.usage : EXIT.refused);
    if (error instanceof ConfigError) return refuse('validation_error', error.message, EXIT.usage);
    // PostgreSQL refused a value (a data exception or a constraint: SQLSTATE classes 22 and 23): the
    // input is wrong, not the system; say so without PostgreSQL's own wording.
    const sqlState = pgErrorCode(error);
    if (sqlState && /^2[23]/.test(sqlState)) {
      return refuse('validation_error', `The database refused a value of this command (SQLSTATE ${sqlState}); check the ids and values given.`, EXIT.refused);
    }
    process.stderr.write(`Failed: ${(error instanceof Error && error.message) || String(error ?? 'an unknown error (no details given)')}\n`);
    return EXIT.failed;
  }
}
