import type { DataSource } from 'typeorm';
import { JobAdmissionRepository } from '../job-admission.repository';
import { JobAdmissionWriter } from '../job-admission.writer';
import { JobClaimsRepository } from '../job-claims.repository';
import { JobFinishRepository } from '../job-finish.repository';
import { JobJanitorRepository } from '../job-janitor.repository';
import { JobReadsRepository } from '../job-reads.repository';

/** The named methods of `target`, bound to it. */
function methods<T extends object, K extends keyof T>(target: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, (target[key] as (...args: unknown[]) => unknown).bind(target)])) as Pick<T, K>;
}

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
    ...methods(admission, ['admit', 'onModuleDestroy']),
    ...methods(claims, ['accountsWithQueuedJobs', 'claim', 'heartbeat', 'saveProgress', 'handBack', 'release']),
    ...methods(finishes, ['finish', 'finishMany', 'cancel']),
    ...methods(reads, ['findById', 'findForAccount', 'listForAccount', 'queuePositions', 'outputExpired']),
    ...methods(janitor, ['pastDeadline', 'expiredLeases', 'requeueExpired', 'sweepExpiredOutputs']),
  };
}

export type JobStore = ReturnType<typeof jobStore>;
