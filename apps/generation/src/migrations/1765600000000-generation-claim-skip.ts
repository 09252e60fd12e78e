import { installSqlFunctions, restoreFunctionsOf } from '@gen/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { GENERATION_FUNCTIONS as F } from '../config/generation.functions';
import { GenerationAdmissionClaim1764730000000 } from './1764730000000-generation-admission-claim';
import { GenerationAdmissionBatch1764740000000 } from './1764740000000-generation-admission-batch';
import { GenerationParkedJobs1764810000000 } from './1764810000000-generation-parked-jobs';

/**
 * One claim: `claim_queued` takes the models to leave queued (`p_skip`, empty by default), and
 * `claim_jobs_except` calls it instead of repeating its body. The same claims as before; a new
 * argument is a new signature, so the five-argument function is dropped first.
 */
export class GenerationClaimSkip1765600000000 implements MigrationInterface {
  name = 'GenerationClaimSkip1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "generation"."claim_queued"(uuid, text, int, int, boolean)`);
    await installSqlFunctions(q, [
      [F.claimQueued, '46d87ec42fac91b3'],
      [F.claimJobsExcept, 'e9030737b636dfbd'],
    ]);
  }

  /** Both functions as the migrations before the files wrote them (the same text, indented as it was then). */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION "generation"."claim_queued"(uuid, text, int, int, boolean, text[])`);
    await restoreFunctionsOf(q, new GenerationAdmissionClaim1764730000000(), ['claim_queued']);
    await restoreFunctionsOf(q, new GenerationAdmissionBatch1764740000000(), ['claim_queued']);
    await restoreFunctionsOf(q, new GenerationParkedJobs1764810000000(), ['claim_jobs_except']);
  }
}
