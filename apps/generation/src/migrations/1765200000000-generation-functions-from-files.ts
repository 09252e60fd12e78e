import { installSqlFunctions, restoreFunctionsOf } from '@gen/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { GENERATION_FUNCTIONS as F } from '../config/generation.functions';
import { GenerationAdmissionClaim1764730000000 } from './1764730000000-generation-admission-claim';
import { GenerationAdmissionBatch1764740000000 } from './1764740000000-generation-admission-batch';
import { GenerationParkedJobs1764810000000 } from './1764810000000-generation-parked-jobs';
import { GenerationInputsOutputs1764830000000 } from './1764830000000-generation-inputs-outputs';
import { GenerationCatalogueNotify1764840000001 } from './1764840000001-generation-catalogue-notify';

/**
 * The PL/pgSQL functions move into `.sql` files beside the code that calls them (see
 * generation.functions.ts): each is installed from its file, the same function as before (the text
 * re-indented, claim_queued's `enable_seqscan = off` written in its header). The hashes pin the
 * text this migration installs; a later change to a file comes with its own migration.
 */
export class GenerationFunctionsFromFiles1765200000000 implements MigrationInterface {
  name = 'GenerationFunctionsFromFiles1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await installSqlFunctions(q, [
      [F.claimQueued, '9df7b0b15d6e92fb'],
      [F.claimJobs, 'c1067f47d514c7d7'],
      [F.claimJobsExcept, '1a35f215b6993437'],
      [F.admitBatch, 'e89b7e30e397e510'],
      [F.acquireBindingSlot, 'd6f02bc8fd202b2d'],
      [F.takeBindingPermits, 'f083ba6caa84b460'],
      [F.announceCatalogueChange, 'd562700268463367'],
    ]);
  }

  /** Each function as the migration that last shaped it wrote it. */
  async down(q: QueryRunner): Promise<void> {
    await restoreFunctionsOf(q, new GenerationAdmissionClaim1764730000000(), ['claim_queued', 'claim_jobs']);
    await restoreFunctionsOf(q, new GenerationAdmissionBatch1764740000000(), ['claim_queued']);
    await restoreFunctionsOf(q, new GenerationParkedJobs1764810000000(), ['acquire_binding_slot', 'take_binding_permits', 'claim_jobs_except']);
    await restoreFunctionsOf(q, new GenerationInputsOutputs1764830000000(), ['admit_batch']);
    await restoreFunctionsOf(q, new GenerationCatalogueNotify1764840000001(), ['announce_catalogue_change']);
  }
}
