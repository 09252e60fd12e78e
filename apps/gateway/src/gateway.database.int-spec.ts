import { createTestDatabase, functionDrift, schemaDrift } from '@gen/testing';
import { GATEWAY_FUNCTIONS } from './settings/gateway.functions';
import { openAuthDatabase } from './gateway.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('gateway schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openAuthDatabase(url, 2))).toEqual([]);
  });

  it('has each PL/pgSQL function as its .sql file defines it', async () => {
    expect(await functionDrift((url) => openAuthDatabase(url, 2), 'auth', Object.values(GATEWAY_FUNCTIONS))).toEqual([]);
  });

  it('the functions-from-files migration reverts to the functions as written before and applies again', async () => {
    const database = await createTestDatabase('authfunctions');
    const db = await openAuthDatabase(database.url, 2);
    const definitions = async () =>
      (await db.query(`SELECT pg_get_functiondef(oid) AS d FROM pg_proc WHERE pronamespace = 'auth'::regnamespace ORDER BY proname`)).map(
        (r: { d: string }) => r.d,
      );
    const words = (texts: string[]) => texts.map((text) => text.replace(/\s+/g, ' '));
    try {
      const fromFiles = await definitions();
      // Undone down to it (later migrations first), so the check holds as migrations are added after it.
      const names = db.migrations.map((migration) => migration.name);
      for (let i = names.indexOf('AuthFunctionsFromFiles1765200000001'); i < names.length; i++) await db.undoLastMigration({ transaction: 'each' });
      // The text as the earlier migrations wrote it (their indentation): the same functions, word for word.
      const before = await definitions();
      expect(before).not.toEqual(fromFiles);
      expect(words(before)).toEqual(words(fromFiles));
      await db.runMigrations({ transaction: 'each' });
      expect(await definitions()).toEqual(fromFiles);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
