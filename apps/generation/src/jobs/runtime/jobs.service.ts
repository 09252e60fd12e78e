import { Inject, Injectable } from '@nestjs/common';
import type { Lane } from '@gen/persistence';
import {
  refuseModelUse,
  type CancelGenerationReply,
  type CancelGenerationRequest,
  type GenerationRecord,
  type OutputStatusReply,
  type OutputStatusRequest,
  type GetGenerationRequest,
  type ListGenerationsReply,
  type ListGenerationsRequest,
  type SubmitGenerationReply,
  type SubmitGenerationRequest,
} from '@gen/contracts';
import { ConflictError, DomainError, NotFoundError, RateLimitError, secondsText, ValidationError } from '@gen/errors';
import { InputValidator } from '@gen/model-inputs';
import { inputsOf, type ModelDefinition } from '../../catalogue/catalogue';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { JobFinisher } from '../job-finisher.service';
import { JobClaimer } from './job-claimer.service';
import { JobRunner } from './job-runner.service';
import { finishedEvent } from '../job-events';
import type { JobEntity } from '../job.entity';
import { toGenerationRecord } from '../job-record';
import type { AdmitOutcome } from '../job-admission.repository';
import { JobAdmissionWriter } from '../job-admission.writer';
import { JobFinishRepository } from '../job-finish.repository';
import { JobReadsRepository } from '../job-reads.repository';
import { SubmittedJobsReader } from '../submitted-jobs.reader';
import { OUTBOX_SETTINGS, OutboxSettings } from '../../config/outbox.settings';

@Injectable()
export class JobsService {
  private readonly inputs: InputValidator;

  constructor(
    private readonly admission: JobAdmissionWriter,
    private readonly jobs: JobReadsRepository,
    private readonly finishes: JobFinishRepository,
    private readonly catalogue: CatalogueService,
    private readonly claimer: JobClaimer,
    private readonly runner: JobRunner,
    private readonly finisher: JobFinisher,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    @Inject(OUTBOX_SETTINGS) private readonly outbox: OutboxSettings,
    private readonly submitted: SubmittedJobsReader,
  ) {
    // Media inputs arrive resolved by the gateway: an https URL, or an upload's URL on the content host.
    this.inputs = new InputValidator({ contentBase: settings.cdnBaseUrl });
  }

  /**
   * Queues the job (its credits are already held by billing) and, for synchronous models, waits up
   * to `waitMs` for it to finish. A repeated submit of the same job id returns the existing job.
   * A queue already at the account's cap (queueCapPerSlot x its parallel slots waiting, on top of
   * the slots themselves) is `429 rate_limit_exceeded`, and nothing is queued.
   */
  async submit(request: SubmitGenerationRequest): Promise<SubmitGenerationReply> {
    const model = await this.admit(request);
    const final = model.synchronous && request.waitMs > 0 ? await this.runner.waitForFinish(request.jobId, request.waitMs) : null;
    // The final row is the record (no position, nothing more to read); else the job as it stands now.
    if (final && final.accountId === request.accountId) {
      return { finished: true, record: toGenerationRecord(final, this.settings.cdnBaseUrl) };
    }
    const found = await this.submitted.read(request.accountId, request.jobId);
    if (!found) throw new NotFoundError(`No generation with id "${request.jobId}".`);
    const record = toGenerationRecord(found.job, this.settings.cdnBaseUrl, found.ahead);
    return { finished: record.status === 'completed' || record.status === 'failed', record };
  }

  /**
   * The submit's admission without its reply (a batch line's, whose caller reads nothing back: one
   * statement less a line). Throws as `submit` does; returns the job's model.
   */
  async admit(request: SubmitGenerationRequest, lane: Lane = 'interactive'): Promise<ModelDefinition> {
    // The same rules the gateway applied, against this replica's catalogue (it may have changed since).
    await this.catalogue.ready();
    // Checked against another catalogue than this replica's: read it again, so that the admission
    // uses the newest (the hold and the charge use the gateway's price, request.credits).
    if (request.catalogueVersion !== undefined && request.catalogueVersion !== this.catalogue.version) await this.catalogue.refreshNow();
    const refusal = refuseModelUse(this.catalogue.describe(request.model), request);
    if (refusal) throw new DomainError(refusal.code, refusal.message);
    const model = this.catalogue.find(request.model) as ModelDefinition;
    // The input as the gateway applied it, checked again against this replica's schema (a change
    // since refuses it here, before anything is queued; the gateway then releases the hold).
    const checked = this.inputs.check(inputsOf(model), request.input ?? {});
    if (!checked.ok) throw new ValidationError(checked.errors.join('; '));
    const slots = request.parallelLimit;
    const maxWaiting = slots * this.settings.queueCapPerSlot;
    // With a free worker here, the admission claims the job too (one statement): it starts at once.
    const offer = this.claimer.offer();
    let claimed: JobEntity[] = [];
    let admitted: AdmitOutcome;
    try {
      admitted = await this.admission.admit(
        {
          id: request.jobId,
          accountId: request.accountId,
          apiKeyId: request.apiKeyId,
          modelId: model.id,
          type: model.type,
          prompt: request.prompt,
          // What billing holds for this job: the price when the gateway checked it, even if it changed since.
          credits: request.credits,
          parallelLimit: slots,
          webhookUrl: request.webhookUrl,
          cancelAfterSeconds: request.cancelAfterSeconds,
          input: checked.input,
          metadata: request.metadata ?? {},
        },
        maxWaiting,
        offer,
        lane,
      );
      if (admitted.kind === 'queued') claimed = admitted.claimed;
    } finally {
      this.claimer.accept(offer, claimed);
    }
    if (admitted.kind === 'queue-full') {
      throw new RateLimitError(
        `Parallel-task limit reached: this account runs at most ${slots} generation${slots === 1 ? '' : 's'} at once ` +
          `and queues at most ${maxWaiting} more; ${admitted.processing} running and ${admitted.queued} queued now. ` +
          `Retry after ${secondsText(admitted.retryAfterSeconds)}, or when some have finished.`,
        admitted.retryAfterSeconds,
      );
    }
    // Still queued (behind the account's limit, or no free worker here): the claimers look now.
    if (!claimed.some((job) => job.id === request.jobId)) this.claimer.nudge();
    return model;
  }

  async get(request: GetGenerationRequest): Promise<GenerationRecord> {
    const job = await this.jobs.findForAccount(request.accountId, request.jobId);
    if (!job) throw new NotFoundError(`No generation with id "${request.jobId}".`);
    return (await this.records(request.accountId, [job]))[0];
  }

  /**
   * Cancels the caller's job: a queued one at once, a processing one by finishing it as canceled
   * now (refunded through its generation.failed event) and stopping its run wherever it is (this
   * process at once; another replica through the broadcast the relay sends, or its next heartbeat),
   * including the provider's job where the engine can cancel one. A job that completes first stays
   * completed: `409`. Canceling a canceled job answers it again (idempotent).
   */
  async cancel(request: CancelGenerationRequest, why: 'user' | 'deadline' = 'user'): Promise<CancelGenerationReply> {
    // The event is leased to this process's relay, which publishes it right after the commit.
    const outcome = await this.finishes.cancel(
      request.accountId,
      request.jobId,
      CANCEL_MESSAGES[why],
      (job) => finishedEvent(job, this.settings.cdnBaseUrl),
      { owner: this.settings.workerId, leaseMs: this.outbox.leaseMs },
    );
    switch (outcome.kind) {
      case 'not-found':
        throw new NotFoundError(`No generation with id "${request.jobId}".`);
      case 'finished':
        throw new ConflictError(`This generation already ${outcome.job.status === 'completed' ? 'completed' : 'failed'}; there is nothing to cancel.`);
      case 'already-canceled':
        return { finished: true, record: toGenerationRecord(outcome.job, this.settings.cdnBaseUrl) };
      case 'canceled':
        if (outcome.wasProcessing) this.runner.stop(outcome.job.id);
        if (outcome.wasParked) this.runner.cancelParked(outcome.job);
        this.finisher.publish(outcome);
        return { finished: true, record: toGenerationRecord(outcome.job, this.settings.cdnBaseUrl) };
    }
  }

  async list(request: ListGenerationsRequest): Promise<ListGenerationsReply> {
    const beforeSeq = request.cursor ? decodeCursor(request.cursor) : undefined;
    const rows = await this.jobs.listForAccount(request.accountId, {
      limit: request.limit + 1,
      beforeSeq,
      status: request.status,
      type: request.type,
    });
    const page = rows.slice(0, request.limit);
    const hasMore = rows.length > request.limit;
    return {
      data: await this.records(request.accountId, page),
      next_cursor: hasMore ? encodeCursor(page[page.length - 1].seq) : null,
    };
  }

  /** Whether an output key was deleted at the end of its retention (the content host answers 410 then). */
  async outputStatus(request: OutputStatusRequest): Promise<OutputStatusReply> {
    return { status: (await this.jobs.outputExpired(request.outputKey)) ? 'expired' : 'unknown' };
  }

  /** Wire records, with the queue position of those still queued. */
  private async records(accountId: string, jobs: JobEntity[]): Promise<GenerationRecord[]> {
    const queued = jobs.filter((job) => job.status === 'queued').map((job) => job.seq);
    const positions = await this.jobs.queuePositions(accountId, queued);
    return jobs.map((job) => toGenerationRecord(job, this.settings.cdnBaseUrl, positions.get(job.seq) ?? null));
  }
}

/** What the record of a canceled job says (it is `failed`, with credits_charged 0). */
export const CANCEL_MESSAGES = {
  user: 'Canceled at your request. Your credits were refunded.',
  deadline: 'Canceled: the generation did not finish within its Cancel-After deadline. Your credits were refunded.',
} as const;

function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const match = /^seq:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new ValidationError('cursor: not a cursor returned by this endpoint.');
  return Number(match[1]);
}
