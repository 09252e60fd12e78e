import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Queryable } from './sql';

/**
 * SQL kept in `.sql` files beside the code that runs it (CONTRIBUTING.md, "Data"): the PL/pgSQL
 * functions, one file each, and the hot statements of a repository. The build copies them next to
 * the compiled JavaScript (tools/copy-sql.js), so `join(__dirname, 'x.sql')` finds one from the
 * TypeScript source (jest) and from dist alike.
 */
const texts = new Map<string, string>();

/** The text of a `.sql` file (line endings as `\n`), read once per process. */
export function readSqlFile(path: string): string {
  let text = texts.get(path);
  if (text === undefined) {
    if (!existsSync(path)) throw new Error(`SQL file ${path} is missing (the build copies .sql files to dist: npm run build)`);
    text = readFileSync(path, 'utf8').replace(/\r\n/g, '\n');
    texts.set(path, text);
  }
  return text;
}

/**
 * A statement from its file, each `/*columns*\/ <alias>.*` in it written out as `<alias>.<column>`
 * for every column of `columns`: the file runs as it is in psql, and a prepared statement names its
 * columns (a `*` whose columns changed under a running process fails with "cached plan must not
 * change result type").
 */
export function readSqlStatement(path: string, columns: readonly string[] = []): string {
  return readSqlFile(path).replace(/\/\*columns\*\/\s*(\S+)\.\*/g, (_, alias: string) => columns.map((column) => `${alias}.${column}`).join(', '));
}

/**
 * A short hash of a `.sql` file's statement, what a migration pins when it installs the file: the
 * comment lines before the statement are left out, so rewording them needs no migration.
 */
export function sqlFileHash(path: string): string {
  const statement = readSqlFile(path).replace(/^(\s*--[^\n]*\n|\s*\n)*/, '');
  return createHash('sha256').update(statement).digest('hex').slice(0, 16);
}

/** A function's file, as the migration that installs it names it: the path and the hash of the text it was written for. */
export type PinnedSqlFile = readonly [path: string, sha256: string];

/**
 * Runs each function file whose text still has the hash the migration pinned (each file is one
 * `CREATE OR REPLACE FUNCTION`). A file changed since then is left to the later migration that pins
 * its new text: a fresh database gets each function's text in migration order, as a migrated one got
 * it, and a file changed with no migration to install it is found by the schema's function drift
 * spec (libs/testing, `functionDrift`). Returns the paths installed.
 */
export async function installSqlFunctions(q: Queryable, files: readonly PinnedSqlFile[]): Promise<string[]> {
  const installed: string[] = [];
  for (const [path, sha256] of files) {
    if (sqlFileHash(path) !== sha256) continue;
    await q.query(readSqlFile(path));
    installed.push(path);
  }
  return installed;
}

/**
 * For the `down` of a migration that replaced functions: runs again the statements of an earlier
 * migration's `up` that made or altered the named functions (`CREATE FUNCTION`, run as CREATE OR
 * REPLACE, and `ALTER FUNCTION`), skipping every other statement. Called for each earlier migration
 * that last shaped one of them, oldest first, it gives each function back the text it had, from
 * where that text is written rather than from a copy.
 */
export async function restoreFunctionsOf(q: Queryable, migration: { up(q: never): Promise<unknown> }, names: readonly string[]): Promise<void> {
  const shapes = new RegExp(`^\\s*(CREATE|ALTER)\\s+FUNCTION\\s+"[^"]+"\\."(${names.join('|')})"\\(`);
  const replaying: Queryable = {
    query: async (sql: string) => {
      if (shapes.test(sql)) await q.query(sql.replace(/^(\s*)CREATE\s+FUNCTION/, '$1CREATE OR REPLACE FUNCTION'));
      return [];
    },
  };
  await migration.up(replaying as never);
}
