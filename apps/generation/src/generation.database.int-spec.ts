import { createTestDatabase, schemaDrift } from '@gen/testing';
import { openGenerationDatabase } from './generation.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('generation schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openGenerationDatabase(url, 2))).toEqual([]);
  });

  it('the admission batch migration (and every later one) reverts to admit_job and applies again', async () => {
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
    // Later migrations (parked jobs' binding limits and claim, 1764810000000) add their own functions.
    const latest = [...batched, 'acquire_binding_slot()', 'claim_jobs_except(enable_seqscan=off)', 'take_binding_permits()'].sort();
    try {
      expect(await functions()).toEqual(latest);
      // Back to before the admission batch migration: every later one is reverted first.
      for (let i = 0; i < 20 && !(await functions()).includes('admit_job()'); i++) await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['admit_job()', 'claim_jobs()', 'claim_queued()']);
      await db.runMigrations({ transaction: 'each' });
      expect(await functions()).toEqual(latest);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
