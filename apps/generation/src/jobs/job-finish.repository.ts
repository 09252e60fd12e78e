import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { PreparedStatement, readSqlStatement, sqlRows } from '@gen/persistence';
import { DataSource, QueryRunner } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import { OutboxLease, OutboxMessage, OutboxRepository } from '../outbox/outbox.repository';
import type { JobEntity, JobOutput } from './job.entity';
import { JOB_COLUMN_NAMES, jobFromRow, JobRow } from './job-row';

export type { OutboxLease, OutboxMessage } from '../outbox/outbox.repository';

export type JobOutcome =
  | { status: 'completed'; /** every output stored, in order (at least one) */ outputs: JobOutput[]; /** retention: the outputs are deleted after this */ keepSeconds: number }
  | { status: 'failed'; error: string; /** set for a cancel (by the user or a deadline): `canceled_at` */ canceled?: boolean };

/** What a cancel found. */
export type CancelOutcome =
  | {
      kind: 'canceled';
      job: JobEntity;
      event: OutboxMessage;
      /** it was running somewhere: its worker must stop */
      wasProcessing: boolean;
      /** it was parked (waiting upstream, no worker): its upstream job is canceled by the canceler */
      wasParked: boolean;
    }
  | { kind: 'already-canceled'; job: JobEntity }
  | { kind: 'finished'; job: JobEntity }
  | { kind: 'not-found' };

/** One job's finish, as `finishMany` takes it. */
export interface FinishRequest {
  jobId: string;
  /** The lease owner finishing it; null for operator and reclaim paths (anyone may finish). */
  owner: string | null;
  outcome: JobOutcome;
  /** Its event, built from the final row. */
  event: (job: JobEntity) => OutboxMessage;
}

/** A job finished by `finishMany`, with the event written with it. */
export interface FinishedJob {
  job: JobEntity;
  event: OutboxMessage;
}

const finishJobs = new PreparedStatement<JobRow>(
  'generation.finish_jobs',
  readSqlStatement(join(__dirname, 'finish-jobs.sql'), JOB_COLUMN_NAMES),
  // Joins jobs to the batch's arrays: planned at each run (see PreparedStatement).
  { planEachRun: true },
);
/** How many arrays `finish-jobs.sql` takes: one per column of its `f`, in finishParams' order. */
const FINISH_ARRAYS = 9;
const CANCEL_JOB = readSqlStatement(join(__dirname, 'cancel-job.sql'), JOB_COLUMN_NAMES);

/**
 * A job's final state, written with its event in one transaction (the outbox), so billing settles
 * every finished job exactly once. State changes are guarded in SQL, so they happen once.
 */
@Injectable()
export class JobFinishRepository {
  constructor(
    @Inject(GENERATION_DB) private readonly db: DataSource,
    // Events are written in the job's own transactions; tools that build this by hand get one on the same DataSource.
    private readonly outbox: OutboxRepository = new OutboxRepository(db),
  ) {}

  /**
   * Writes a job's final state and its event in one transaction (`finishMany` for one job). Only the
   * lease owner of a processing job can finish it (or anyone, with owner null, for operator and
   * reclaim paths). With a lease, the event is held by that relay, which publishes it at once.
   */
  async finish(
    jobId: string,
    owner: string | null,
    outcome: JobOutcome,
    buildEvent: (job: JobEntity) => OutboxMessage,
    lease: OutboxLease | null = null,
  ): Promise<JobEntity | null> {
    const [finished] = await this.finishMany([{ jobId, owner, outcome, event: buildEvent }], lease);
    return finished?.job ?? null;
  }

  /**
   * Finishes many jobs in one transaction, one synchronous commit for all (group commit: the final
   * states and their events are durable when this resolves). One result per request, in order:
   * null where the job was not there to finish (already final, or no longer the owner's), exactly as
   * if each had been finished alone. A job named twice is finished by the first request; the second
   * finds it final.
   */
  async finishMany(requests: readonly FinishRequest[], lease: OutboxLease | null): Promise<Array<FinishedJob | null>> {
    if (requests.length === 0) return [];
    return this.db.transaction(async (tx) => {
      const runner = tx.queryRunner as QueryRunner;
      const results: Array<FinishedJob | null> = requests.map(() => null);
      for (const round of distinctJobRounds(requests)) {
        const params = round.map((i) => finishParams(requests[i]));
        const arrays = Array.from({ length: FINISH_ARRAYS }, (_, column) => params.map((p) => p[column]));
        const rows = await finishJobs.rows(runner, arrays);
        const finished = new Map(rows.map((row) => [row.id.toLowerCase(), jobFromRow(row)]));
        const events: OutboxMessage[] = [];
        for (const i of round) {
          const job = finished.get(requests[i].jobId.toLowerCase());
          if (!job) continue;
          const event = requests[i].event(job);
          results[i] = { job, event };
          events.push(event);
        }
        await this.outbox.append(runner, events, lease);
      }
      return results;
    });
  }

  /**
   * Cancels an unfinished job of the account, queued or processing, in one transaction with its
   * generation.failed event (so billing refunds it). The final state is guarded like every finish:
   * if the worker's completion commits first, this finds the job finished and changes nothing; if
   * this commits first, the worker's finish finds no processing job and its output is discarded.
   * Either way the job is charged exactly once or refunded exactly once.
   */
  async cancel(
    accountId: string,
    jobId: string,
    error: string,
    buildEvent: (job: JobEntity) => OutboxMessage,
    lease: OutboxLease | null = null,
  ): Promise<CancelOutcome> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<JobRow & { was_processing: boolean; was_parked: boolean }>(tx, CANCEL_JOB, [jobId, accountId, error]);
      if (rows.length === 1) {
        const job = jobFromRow(rows[0]);
        const event = buildEvent(job);
        await this.outbox.append(tx.queryRunner as QueryRunner, [event], lease);
        return { kind: 'canceled', job, event, wasProcessing: rows[0].was_processing, wasParked: rows[0].was_parked } as const;
      }
      const existing = await sqlRows<JobRow>(tx, `SELECT * FROM jobs WHERE id = $1 AND account_id = $2`, [jobId, accountId]);
      if (existing.length === 0) return { kind: 'not-found' } as const;
      const job = jobFromRow(existing[0]);
      return job.canceledAt ? ({ kind: 'already-canceled', job } as const) : ({ kind: 'finished', job } as const);
    });
  }
}

/** The values of one request, in the order of finish-jobs.sql's `f` columns. */
function finishParams({ jobId, owner, outcome }: FinishRequest): unknown[] {
  if (outcome.status === 'failed') return [jobId, owner, 'failed', null, null, outcome.error, outcome.canceled === true, null, null];
  const [first] = outcome.outputs;
  if (!first) throw new Error(`job ${jobId} completed without an output`);
  return [jobId, owner, 'completed', first.key, first.content_type, null, false, outcome.keepSeconds, JSON.stringify(outcome.outputs)];
}

/**
 * The requests' indexes in rounds where no job appears twice (one UPDATE ... FROM per round: a row
 * joined to two inputs would take one of them, unspecified which). Nearly always one round.
 */
function distinctJobRounds(requests: readonly FinishRequest[]): number[][] {
  const rounds: Array<{ ids: Set<string>; indexes: number[] }> = [];
  requests.forEach((request, index) => {
    const id = request.jobId.toLowerCase();
    let round = rounds.find((r) => !r.ids.has(id));
    if (!round) rounds.push((round = { ids: new Set(), indexes: [] }));
    round.ids.add(id);
    round.indexes.push(index);
  });
  return rounds.map((r) => r.indexes);
}
