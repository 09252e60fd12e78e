import { bindMethods } from '@gen/testing';
import type { DataSource } from 'typeorm';
import { JobAdmissionRepository } from '../job-admission.repository';
import { JobAdmissionWriter } from '../job-admission.writer';
import { JobClaimsRepository } from '../job-claims.repository';
import { JobFinishRepository } from '../job-finish.repository';
import { JobJanitorRepository } from '../job-janitor.repository';
import { JobReadsRepository } from '../job-reads.repository';

/**
 * Every job repository (and the admission writer) on one DataSource, as a generation replica has
 * them, with their methods under one roof for specs and benches that drive jobs end to end.
 */
export function jobStore(db: DataSource) {
  const admission = new JobAdmissionWriter(new JobAdmissionRepository(db));
  const claims = new JobClaimsRepository(db);
  const finishes = new JobFinishRepository(db);
  const reads = new JobReadsRepository(db);
  const janitor = new JobJanitorRepository(db);
  return {
    admission,
    claims,
    finishes,
    reads,
    janitor,
    ...bindMethods(admission, ['admit', 'onModuleDestroy']),
    ...bindMethods(claims, ['accountsWithQueuedJobs', 'claim', 'heartbeat', 'saveProgress', 'handBack', 'release']),
    ...bindMethods(finishes, ['finish', 'finishMany', 'cancel']),
    ...bindMethods(reads, ['findById', 'findForAccount', 'listForAccount', 'queuePositions', 'outputExpired']),
    ...bindMethods(janitor, ['pastDeadline', 'expiredLeases', 'requeueExpired', 'sweepExpiredOutputs']),
  };
}

export type JobStore = ReturnType<typeof jobStore>;
