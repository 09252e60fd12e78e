import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EmbeddedPostgresHandle, ensureDatabase, readPostmaster, startEmbeddedPostgres } from '@gen/persistence';
import { STANDALONE_DATABASE } from '@gen/standalone';

export interface CliDatabase {
  url: string;
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

/**
 * Which database the operator means: DATABASE_URL when set (distributed deployments), else the
 * standalone data folder, through the running server's Postgres or by starting it for the command.
 */
export async function resolveCliDatabase(env: NodeJS.ProcessEnv = process.env): Promise<CliDatabase> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, embedded: null };
  const dataDir = resolve(env.DATA_DIR ?? '.data');
  const port = runningStandalonePort(dataDir);
  if (port) return { url: `postgres://postgres:postgres@127.0.0.1:${port}/${STANDALONE_DATABASE}`, embedded: null };
  const embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, 'pg') });
  await ensureDatabase(embedded.adminUrl, STANDALONE_DATABASE);
  return { url: embedded.urlFor(STANDALONE_DATABASE), embedded };
}
