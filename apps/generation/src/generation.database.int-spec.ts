import { createTestDatabase, functionDrift, schemaDrift } from '@gen/testing';
import { GENERATION_FUNCTIONS } from './config/generation.functions';
import type { DataSource } from 'typeorm';
import { openGenerationDatabase } from './generation.database';

/** Reverts migrations, newest first, down to and including the named one. */
async function undoThrough(db: DataSource, name: string): Promise<void> {
  for (;;) {
    const [last] = await db.query(`SELECT name FROM "generation"."migrations" ORDER BY timestamp DESC LIMIT 1`);
    await db.undoLastMigration({ transaction: 'each' });
    if (last.name === name) return;
  }
}

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('generation schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openGenerationDatabase(url, 2))).toEqual([]);
  });

  it('has each PL/pgSQL function as its .sql file defines it', async () => {
    expect(await functionDrift((url) => openGenerationDatabase(url, 2), 'generation', Object.values(GENERATION_FUNCTIONS))).toEqual([]);
  });

  it('three replicas starting together on an empty database all migrate it, the CONCURRENTLY index included', async () => {
    const database = await createTestDatabase('generationrace');
    const opened: DataSource[] = [];
    try {
      // A replica blocked in pg_advisory_lock would hold a snapshot that CREATE INDEX CONCURRENTLY
      // waits for while the replica waits for the lock: none would ever start (the jest timeout says so).
      opened.push(...(await Promise.all([1, 2, 3].map(() => openGenerationDatabase(database.url, 2)))));
      const [index] = await opened[0]!.query(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'generation.outbox_published'::regclass`);
      expect(index.indisvalid).toBe(true);
    } finally {
      await Promise.all(opened.map((db) => db.destroy()));
      await database.drop();
    }
  }, 60_000);

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
    const batched = ['admit_batch(enable_seqscan=off)', 'announce_catalogue_change()', 'claim_jobs()', 'claim_queued(enable_seqscan=off)'];
    // Later migrations (parked jobs' binding limits and claim, 1764810000000) add their own functions.
    const latest = [...batched, 'acquire_binding_slot()', 'claim_jobs_except(enable_seqscan=off)', 'take_binding_permits()'].sort();
    try {
      expect(await functions()).toEqual(latest);
      await undoThrough(db, 'GenerationAdmissionBatch1764740000000');
      expect(await functions()).toEqual(['admit_job()', 'claim_jobs()', 'claim_queued()']);
      await db.runMigrations({ transaction: 'each' });
      expect(await functions()).toEqual(latest);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('the model labels migration reverts to the seed names and applies again', async () => {
    const database = await createTestDatabase('generationlabels');
    const db = await openGenerationDatabase(database.url, 2);
    const names = async () => (await db.query(`SELECT id, name FROM "generation"."models" ORDER BY id`)).map((r: { id: string; name: string }) => `${r.id}: ${r.name}`);
    try {
      const labelled = await names();
      expect(labelled).toContain('pixel-flux-1: Demo: procedural shapes, 512x512 (not an AI model)');
      await undoThrough(db, 'GenerationModelLabels1764880000000');
      expect(await names()).toContain('pixel-flux-1: Pixel Flux 1 (image, 512x512)');
      await db.runMigrations({ transaction: 'each' });
      expect(await names()).toEqual(labelled);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
