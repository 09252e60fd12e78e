import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DomainError } from '@gen/errors';
import { EmbeddedPostgresHandle, ensureDatabase, readPostmaster, startEmbeddedPostgres } from '@gen/persistence';
import { STANDALONE_DATABASE } from '@gen/standalone';
import type { CliDatabaseSettings } from './cli.settings';

export interface CliDatabase {
  url: string;
  /** `server`: DATABASE_URL (a distributed deployment); `standalone`: a standalone data folder. */
  mode: 'server' | 'standalone';
  /** The standalone data folder (absolute), in standalone mode. */
  dataDir: string | null;
  /** One line for the operator: which data this command works on. */
  description: string;
  /** Set when the CLI started the embedded server itself (stopped when the command ends). */
  embedded: EmbeddedPostgresHandle | null;
}

/**
 * The port of the embedded PostgreSQL of a standalone server that is running on this data folder.
 * Not after a crash: runtime.json then names a process that is gone (or a pid since reused), and the
 * postmaster it left behind is no longer owned by it; starting the embedded server stops that one.
 */
function runningStandalonePort(dataDir: string): number | null {
  const file = join(dataDir, 'runtime.json');
  if (!existsSync(file)) return null;
  try {
    const runtime = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number; pgPort?: number | null };
    if (!runtime.pid || !runtime.pgPort) return null;
    process.kill(runtime.pid, 0); // throws when that process is gone
    const postmaster = readPostmaster(join(dataDir, 'pg'));
    if (postmaster && postmaster.parentPid !== runtime.pid) return null;
    return runtime.pgPort;
  } catch {
    return null;
  }
}

/** A server URL without its password, to name it in a message. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(DATABASE_URL is not a URL)';
  }
}

/** Whether a standalone data folder holds a database (its embedded PostgreSQL was initialised there). */
export function hasStandaloneData(dataDir: string): boolean {
  return existsSync(join(dataDir, 'pg', 'PG_VERSION'));
}

/**
 * Which database the operator means: DATABASE_URL when set (distributed deployments), else the
 * standalone data folder, through the running server's Postgres or by starting it for the command.
 * A command that only finds things (`mayCreate` false) refuses a data folder that does not exist
 * instead of creating an empty one: an operator in the wrong folder, or without DATA_DIR, would
 * otherwise be told "(no accounts)" about data that is elsewhere.
 */
export async function resolveCliDatabase(settings: CliDatabaseSettings, options: { mayCreate: boolean }): Promise<CliDatabase> {
  if (settings.databaseUrl) {
    const url = settings.databaseUrl;
    return { url, mode: 'server', dataDir: null, description: `Database: ${redactedUrl(url)} (DATABASE_URL)`, embedded: null };
  }
  const { dataDir, dataDirSource: which } = settings;
  const exists = hasStandaloneData(dataDir);
  if (!exists && !options.mayCreate) {
    throw new DomainError(
      'not_found',
      `No standalone data in ${dataDir} (${which}), so there is nothing to read or change there. ` +
        'Set DATA_DIR to the folder the server uses (npm start creates .data in the checkout), ' +
        'or DATABASE_URL for a deployment on a PostgreSQL server. Nothing was created.',
    );
  }
  const description = exists
    ? `Standalone data: ${dataDir} (${which})`
    : `Standalone data: creating a new data folder in ${dataDir} (${which})`;
  const port = runningStandalonePort(dataDir);
  if (port) {
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${port}/${STANDALONE_DATABASE}`,
      mode: 'standalone',
      dataDir,
      description: `${description}, through the running server`,
      embedded: null,
    };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg') });
  await ensureDatabase(embedded.adminUrl, STANDALONE_DATABASE);
  return { url: embedded.urlFor(STANDALONE_DATABASE), mode: 'standalone', dataDir, description, embedded };
}
