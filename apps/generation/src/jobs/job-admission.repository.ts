import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readRows, readSqlFile, readSqlStatement, retryTransient } from '@gen/persistence';
import type { GenerationType } from '@gen/contracts';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { JobEntity } from './job.entity';
import { bySeq, JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

export interface NewJob {
  id: string;
  accountId: string;
  apiKeyId: string;
  modelId: string;
  type: GenerationType;
  prompt: string;
  credits: number;
  parallelLimit: number;
  webhookUrl: string | null;
  /** `Cancel-After`: canceled unless finished this many seconds after submit (null: no deadline). */
  cancelAfterSeconds?: number | null;
  /** The customer's input as applied (validated, defaults filled in); `{}` when none. */
  input?: Record<string, unknown>;
  /** The customer's metadata; `{}` when none. */
  metadata?: Record<string, string>;
}

/** A claim made with an admission, for the submitting process's free workers (see JobAdmissionWriter.admit). */
export interface ClaimOffer {
  owner: string;
  leaseMs: number;
  /** Jobs it can take now (0: admit only). */
  max: number;
}

export type AdmitOutcome =
  | { kind: 'queued'; /** jobs of the account claimed for the offer's owner, oldest first (often just this one) */ claimed: JobEntity[] }
  | { kind: 'exists' }
  | { kind: 'queue-full'; queued: number; processing: number; retryAfterSeconds: number };

/** One submit's admission, as the admission writer queues it. */
export interface Admission {
  job: NewJob;
  maxWaiting: number;
  offer?: ClaimOffer;
}

/** An admission's outcome before a full queue's retry estimate is added. */
export type Admitted = Exclude<AdmitOutcome, { kind: 'queue-full' }> | { kind: 'queue-full'; queued: number; processing: number };

/** One row per item (job columns all null), then one per job claimed (outcome 'claimed'). */
type AdmitRow = { item: number; outcome: 'queued' | 'exists' | 'queue-full' | 'claimed'; queued: string; processing: string } & Omit<JobRow, 'id'> & {
  id: string | null;
};

const admitBatch = new PreparedStatement<AdmitRow>('generation.admit_batch', readSqlStatement(join(__dirname, 'admit-batch.sql'), JOB_COLUMN_NAMES));
const NEXT_SLOT_ESTIMATE = readSqlFile(join(__dirname, 'next-slot-estimate.sql'));

/**
 * The admission's statements (function `admit_batch`, admit-batch.function.sql). Admissions that
 * arrive together are group-committed by JobAdmissionWriter, which calls `admitBatch`.
 */
@Injectable()
export class JobAdmissionRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * Admits a batch in one statement and one synchronous commit, so every accepted job is durable
   * before its caller is told. Within the statement each account is admitted under a
   * transaction-scoped advisory lock (accounts in id order), so any number of replicas cannot
   * overfill a queue; with an owner, the account's head jobs are claimed for it in the same
   * statement. Every offer of the batch names `owner` (the writer sends items of another owner alone).
   * A job id that already exists is left as it is ('exists': a repeated submit).
   */
  async admitBatch(items: readonly Admission[], owner: { owner: string; leaseMs: number } | undefined): Promise<Admitted[]> {
    // Keyed by job id: a run repeated after a lost connection finds the jobs the first one admitted.
    const rows = await retryTransient(() =>
      admitBatch.rows(this.db, [
        items.map((i) => i.job.id),
        items.map((i) => i.job.accountId),
        items.map((i) => i.job.apiKeyId),
        items.map((i) => i.job.modelId),
        items.map((i) => i.job.type),
        items.map((i) => i.job.prompt),
        items.map((i) => i.job.credits),
        items.map((i) => i.job.parallelLimit),
        items.map((i) => i.job.webhookUrl),
        items.map((i) => i.job.cancelAfterSeconds ?? null),
        items.map((i) => i.maxWaiting),
        owner?.owner ?? null,
        owner?.leaseMs ?? 0,
        items.map((i) => i.offer?.max ?? 0),
        items.map((i) => JSON.stringify(i.job.input ?? {})),
        items.map((i) => JSON.stringify(i.job.metadata ?? {})),
      ]),
    );
    const results = new Array<Admitted | undefined>(items.length);
    const claimed = items.map((): JobEntity[] => []);
    for (const row of rows) {
      const index = row.item - 1;
      if (row.outcome === 'claimed') claimed[index].push(jobFromRow(row as AdmitRow & JobRow));
      else if (row.outcome === 'queued') results[index] = { kind: 'queued', claimed: claimed[index] };
      else if (row.outcome === 'exists') results[index] = { kind: 'exists' };
      else results[index] = { kind: 'queue-full', queued: Number(row.queued), processing: Number(row.processing) };
    }
    return results.map((result, i) => {
      if (!result) throw new Error(`admit_batch returned no outcome for item ${i + 1} of ${items.length}`);
      return result.kind === 'queued' ? { kind: 'queued', claimed: bySeq(result.claimed) } : result;
    });
  }

  /**
   * Seconds until a running job of the account is likely to finish (and free a queue place): the
   * mean run time of its last 20 finished jobs less the age of its oldest running one; 1 to 60.
   */
  async nextSlotEstimate(accountId: string): Promise<number> {
    const rows = await readRows<{ mean_run: string | null; oldest_running: string | null }>(this.db, NEXT_SLOT_ESTIMATE, [accountId]);
    const meanRun = rows[0].mean_run === null ? 5 : Number(rows[0].mean_run);
    const oldestRunning = rows[0].oldest_running === null ? 0 : Number(rows[0].oldest_running);
    return Math.min(60, Math.max(1, Math.ceil(meanRun - oldestRunning)));
  }
}
