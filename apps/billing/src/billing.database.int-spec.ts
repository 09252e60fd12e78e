import { createTestDatabase, schemaDrift } from '@gen/testing';
import { openBillingDatabase } from './billing.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('billing schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openBillingDatabase(url, 2))).toEqual([]);
  });

  it('the batch functions migration reverts and applies again', async () => {
    const database = await createTestDatabase('billingdown');
    const db = await openBillingDatabase(database.url, 2);
    const functions = async () =>
      (await db.query(`SELECT proname FROM pg_proc WHERE pronamespace = 'billing'::regnamespace ORDER BY proname`)).map(
        (r: { proname: string }) => r.proname,
      );
    try {
      expect(await functions()).toEqual(['reserve_batch', 'settle_batch']);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual([]);
      await db.runMigrations({ transaction: 'each' });
      expect(await functions()).toEqual(['reserve_batch', 'settle_batch']);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
