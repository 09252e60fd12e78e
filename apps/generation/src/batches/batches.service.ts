import { Inject, Injectable } from '@nestjs/common';
import type {
  AddBatchLinesReply,
  AddBatchLinesRequest,
  BatchLineOutcome,
  BatchLineResult,
  BatchLinesReply,
  BatchView,
  CancelBatchRequest,
  CreateBatchRequest,
  GetBatchRequest,
  ListBatchesReply,
  ListBatchesRequest,
  ListBatchLinesRequest,
  SealBatchRequest,
} from '@gen/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@gen/errors';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { toGenerationRecord } from '../jobs/job-record';
import { BatchEnding } from './batch-ending.service';
import { BatchFeedRepository } from './batch-feed.repository';
import { BatchFeeder } from './batch-feeder.service';
import { BatchStoreRepository, LinePageRow } from './batch-store.repository';
import { BatchRow, isRunning, toBatchView } from './batch-view';

/** The generation.batch.* use cases (docs/design/batches.md): the gateway hands a batch over, then reads and cancels it. */
@Injectable()
export class BatchesService {
  constructor(
    private readonly store: BatchStoreRepository,
    private readonly feed: BatchFeedRepository,
    private readonly feeder: BatchFeeder,
    private readonly ending: BatchEnding,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  /** The batch, `receiving` (invisible until sealed); a repeat of the same id keeps it and answers the lines stored so far. */
  async create(request: CreateBatchRequest): Promise<AddBatchLinesReply> {
    const batch = await this.store.create(request);
    if (!batch) throw new ConflictError(`Batch "${request.batchId}" belongs to another account.`);
    return { received: await this.store.received(batch.id) };
  }

  async addLines(request: AddBatchLinesRequest): Promise<AddBatchLinesReply> {
    const batch = await this.store.find(request.accountId, request.batchId, true);
    if (!batch) throw new NotFoundError(`No batch with id "${request.batchId}".`);
    if (batch.status !== 'receiving') throw new ConflictError(`Batch "${request.batchId}" is sealed: it takes no more lines.`);
    const beyond = [...request.lines, ...request.invalid].find((l) => l.line > batch.total_lines);
    if (beyond) throw new ValidationError(`Line ${beyond.line} is beyond the batch's ${batch.total_lines} lines.`);
    return { received: await this.store.addLines(request, batch.total_lines) };
  }

  /** Starts the batch (its window from now) once every line is stored; a repeat answers it as it is. */
  async seal(request: SealBatchRequest): Promise<BatchView> {
    const outcome = await this.store.seal(request.accountId, request.batchId);
    switch (outcome.kind) {
      case 'not-found':
        throw new NotFoundError(`No batch with id "${request.batchId}".`);
      case 'missing-lines':
        throw new ConflictError(`The batch has ${outcome.received} of its ${outcome.total} lines: send the rest before sealing it.`);
      case 'sealed':
        this.feeder.nudge();
        return this.view(outcome.batch);
      case 'already-sealed':
        return this.view(outcome.batch);
    }
  }

  async get(request: GetBatchRequest): Promise<BatchView> {
    return this.view(await this.visible(request.accountId, request.batchId));
  }

  async list(request: ListBatchesRequest): Promise<ListBatchesReply> {
    const rows = await this.store.list(request.accountId, request.limit + 1, request.cursor ? decodeCursor(request.cursor) : null);
    const page = rows.slice(0, request.limit);
    const last = page[page.length - 1];
    return {
      data: await Promise.all(page.map((row) => this.view(row))),
      next_cursor: rows.length > request.limit && last ? encodeCursor(last) : null,
    };
  }

  /**
   * Lines not admitted are canceled, admitted jobs still queued are canceled (refunded), running ones
   * finish; the batch is `canceling` until they have, then `canceled`. A batch that ended answers as it is.
   */
  async cancel(request: CancelBatchRequest): Promise<BatchView> {
    await this.visible(request.accountId, request.batchId);
    const queued = await this.feed.cancel(request.accountId, request.batchId);
    if (queued) {
      await this.ending.cancelJobs(request.accountId, queued);
      await this.ending.end(request.batchId);
      this.feeder.nudge();
    }
    return this.view(await this.visible(request.accountId, request.batchId));
  }

  /** A page of the results file (completed lines) or the errors file (the rest), in line order, each with its generation. */
  async lines(request: ListBatchLinesRequest): Promise<BatchLinesReply> {
    await this.visible(request.accountId, request.batchId);
    const rows = await this.store.linePage(request.batchId, request.afterLine, request.limit + 1, request.file);
    const page = rows.slice(0, request.limit);
    const jobs = new Map(
      (await this.store.jobs(request.accountId, page.flatMap((r) => (r.job_outcome ? [r.job_id as string] : [])))).map((job) => [job.id, job]),
    );
    const data = page.map((row): BatchLineResult => {
      const job = row.job_id ? jobs.get(row.job_id) : undefined;
      const outcome = row.job_outcome ?? (row.state as BatchLineOutcome);
      return {
        line: row.line,
        custom_id: row.custom_id,
        outcome,
        generation: job ? toGenerationRecord(job, this.settings.cdnBaseUrl) : null,
        error: outcome === 'completed' ? null : errorOf(row, outcome, job?.error ?? null),
      };
    });
    const last = page[page.length - 1];
    return { data, next_after_line: rows.length > request.limit && last ? last.line : null };
  }

  private async visible(accountId: string, batchId: string): Promise<BatchRow> {
    const batch = await this.store.find(accountId, batchId);
    if (!batch) throw new NotFoundError(`No batch with id "${batchId}".`);
    return batch;
  }

  private async view(batch: BatchRow): Promise<BatchView> {
    // A finished batch carries its final counts; a running one's are read now.
    return toBatchView(batch, batch.final_counts && !isRunning(batch.status) ? null : await this.store.counts(batch.id));
  }
}

/** Why a line did not complete: its job's error, or what the line itself records (a refused hold, a cancel, the window). */
function errorOf(row: LinePageRow, outcome: BatchLineOutcome, jobError: string | null): { code: string; message: string } {
  if (row.job_outcome) {
    return { code: outcome === 'canceled' ? 'canceled' : 'generation_failed', message: jobError ?? 'The generation failed.' };
  }
  return { code: row.error_code ?? outcome, message: row.error_message ?? outcome };
}

function encodeCursor(batch: BatchRow): string {
  return Buffer.from(`${batch.created_at.toISOString()}|${batch.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  const match = /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError('cursor: not a cursor returned by this endpoint.');
  return { createdAt: match[1], id: match[2] };
}
