import { createTestDatabase, schemaDrift } from '@gen/testing';
import { openGenerationDatabase } from './generation.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('generation schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openGenerationDatabase(url, 2))).toEqual([]);
  });

  it('the admission batch migration reverts to admit_job and applies again', async () => {
    const database = await createTestDatabase('generationdown');
    const db = await openGenerationDatabase(database.url, 2);
    // Each function with the settings it runs under.
    const functions = async () =>
      (
        await db.query(
          `SELECT proname, coalesce(array_to_string(proconfig, ','), '') AS config FROM pg_proc
           WHERE pronamespace = 'generation'::regnamespace ORDER BY proname`,
        )
      ).map((r: { proname: string; config: string }) => `${r.proname}(${r.config})`);
    const batched = ['admit_batch(enable_seqscan=off)', 'claim_jobs()', 'claim_queued(enable_seqscan=off)'];
    try {
      expect(await functions()).toEqual(batched);
      // Back to before the admission batch migration, whatever came after it.
      const batch = db.migrations.findIndex((m) => m.name === 'GenerationAdmissionBatch1764740000000');
      for (let undo = db.migrations.length - batch; undo > 0; undo--) await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['admit_job()', 'claim_jobs()', 'claim_queued()']);
      await db.runMigrations({ transaction: 'each' });
      expect(await functions()).toEqual(batched);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
