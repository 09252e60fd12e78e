import { join } from 'node:path';

/**
 * Every PL/pgSQL function of the generation schema, each in its `.sql` file beside the code that
 * calls it: the file is the function's current text, installed by the migration that pins it, and
 * the schema spec fails when the database and a file disagree (CONTRIBUTING.md, "Data").
 */
export const GENERATION_FUNCTIONS = {
  admitBatch: join(__dirname, '..', 'jobs', 'admit-batch.function.sql'),
  claimQueued: join(__dirname, '..', 'jobs', 'claim-queued.function.sql'),
  claimJobs: join(__dirname, '..', 'jobs', 'claim-jobs.function.sql'),
  claimJobsExcept: join(__dirname, '..', 'jobs', 'claim-jobs-except.function.sql'),
  acquireBindingSlot: join(__dirname, '..', 'jobs', 'acquire-binding-slot.function.sql'),
  takeBindingPermits: join(__dirname, '..', 'jobs', 'take-binding-permits.function.sql'),
  announceCatalogueChange: join(__dirname, '..', 'catalogue', 'announce-catalogue-change.function.sql'),
} as const;
