import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installSqlFunctions, readSqlStatement, restoreFunctionsOf, sqlFileHash } from './sql-file';

describe('SQL files', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sql-file-'));
  const file = (name: string, text: string) => {
    const path = join(folder, name);
    writeFileSync(path, text);
    return path;
  };
  const recorder = () => {
    const sent: string[] = [];
    return { sent, db: { query: async (sql: string) => void sent.push(sql) } };
  };

  it('writes out /*columns*/ alias.* as the named columns of that alias', () => {
    const path = file('statement.sql', 'SELECT r.item, /*columns*/ (r.job).* FROM f() AS r\nRETURNING /*columns*/ jobs.*, x AS y\n');
    expect(readSqlStatement(path, ['id', 'seq'])).toBe('SELECT r.item, (r.job).id, (r.job).seq FROM f() AS r\nRETURNING jobs.id, jobs.seq, x AS y\n');
  });

  it('hashes the statement, not the comment lines before it', () => {
    const a = file('a.sql', '-- one wording\nCREATE OR REPLACE FUNCTION "s"."f"() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;\n');
    const b = file('b.sql', '-- another wording\n-- on two lines\n\nCREATE OR REPLACE FUNCTION "s"."f"() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;\n');
    const c = file('c.sql', '-- one wording\nCREATE OR REPLACE FUNCTION "s"."f"() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 2; END $$;\n');
    expect(sqlFileHash(a)).toBe(sqlFileHash(b));
    expect(sqlFileHash(a)).not.toBe(sqlFileHash(c));
  });

  it('installs a function file only while it has the hash its migration pinned', async () => {
    const path = file('f.sql', 'CREATE OR REPLACE FUNCTION "s"."f"() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;\n');
    const { sent, db } = recorder();
    expect(await installSqlFunctions(db, [[path, sqlFileHash(path)]])).toEqual([path]);
    expect(await installSqlFunctions(db, [[path, '0000000000000000']])).toEqual([]);
    expect(sent).toHaveLength(1);
  });

  it('restores functions by running again only the statements of an earlier migration that made or altered them', async () => {
    const earlier = {
      async up(q: { query(sql: string): Promise<unknown> }) {
        await q.query('ALTER TABLE "s"."t" ADD COLUMN "c" int');
        await q.query('\n      CREATE FUNCTION "s"."f"(p int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN p; END $$');
        await q.query('CREATE FUNCTION "s"."g"() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 0; END $$');
        await q.query('ALTER FUNCTION "s"."f"(int) SET enable_seqscan = off');
      },
    };
    const { sent, db } = recorder();
    await restoreFunctionsOf(db, earlier, ['f']);
    expect(sent).toEqual([
      '\n      CREATE OR REPLACE FUNCTION "s"."f"(p int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN p; END $$',
      'ALTER FUNCTION "s"."f"(int) SET enable_seqscan = off',
    ]);
  });
});
