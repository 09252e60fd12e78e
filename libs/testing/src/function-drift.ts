import { basename } from 'node:path';
import { readSqlFile, sqlFileHash, sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { createTestDatabase } from './test-database';

interface FunctionDefinition {
  oid: number;
  name: string;
  definition: string;
}

/** Every PL/pgSQL function of the schema with its whole definition (header, settings, body). */
const DEFINITIONS = `
  SELECT p.oid::int AS oid, p.oid::regprocedure::text AS name, pg_get_functiondef(p.oid) AS definition
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
  WHERE p.pronamespace = $1::regnamespace AND l.lanname = 'plpgsql'`;

/** The functions changed by the current transaction (a CREATE OR REPLACE writes its row even when nothing changed). */
const TOUCHED = `SELECT p.oid::int AS oid FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.xmin = pg_current_xact_id()::xid`;

/**
 * Where the PL/pgSQL functions of a schema migrated by the service's own migrations differ from
 * their `.sql` files (CONTRIBUTING.md, "Data"): empty when they agree. Each file is run in a
 * transaction that is rolled back: a function it defines must come out exactly as the migrations
 * left it (pg_get_functiondef: signature, result, settings and body, to the character), and every
 * PL/pgSQL function of the schema must be defined by one of the files. A file changed with no
 * migration installing its new text is reported with the hash that migration pins.
 */
export async function functionDrift(open: (url: string) => Promise<DataSource>, schema: string, files: readonly string[]): Promise<string[]> {
  const database = await createTestDatabase('functions');
  const db = await open(database.url);
  const problems: string[] = [];
  try {
    const migrated = new Map((await sqlRows<FunctionDefinition>(db, DEFINITIONS, [schema])).map((f) => [f.oid, f]));
    const covered = new Set<number>();
    for (const file of files) {
      const runner = db.createQueryRunner();
      await runner.startTransaction();
      try {
        await runner.query(readSqlFile(file));
        const touched = (await sqlRows<{ oid: number }>(runner, TOUCHED, [schema])).map((r) => r.oid);
        const after = new Map((await sqlRows<FunctionDefinition>(runner, DEFINITIONS, [schema])).map((f) => [f.oid, f]));
        if (touched.length === 0) problems.push(`${basename(file)} defines no function of schema ${schema}`);
        for (const oid of touched) {
          covered.add(oid);
          const before = migrated.get(oid);
          const name = after.get(oid)?.name ?? String(oid);
          if (!before) problems.push(`${basename(file)} defines ${name}, which the migrations do not make`);
          else if (before.definition !== after.get(oid)?.definition) {
            problems.push(`${basename(file)} differs from ${name} as the migrations leave it: a migration must install it (pin ${sqlFileHash(file)})`);
          }
        }
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    }
    for (const f of migrated.values()) if (!covered.has(f.oid)) problems.push(`${f.name} has no .sql file`);
    return problems;
  } finally {
    await db.destroy();
    await database.drop();
  }
}
