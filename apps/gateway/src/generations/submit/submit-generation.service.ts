import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  GenerationRecord,
  ReleaseCreditsRequest,
  ReserveCreditsReply,
  ReserveCreditsRequest,
  SubmitGenerationReply,
  SubmitGenerationRequest,
  Subjects,
} from '@gen/contracts';
import { DomainError } from '@gen/errors';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { ApiKeysService } from '../../auth/api-keys.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../../settings/gateway.tokens';
import type { StoredResponse } from '../../idempotency/idempotency.repository';
import { IdempotencyService, parseIdempotencyKey } from '../../idempotency/idempotency.service';
import { ModelCatalogue } from '../../models/model-catalogue';
import { AccountPlanService } from '../../plans/account-plan.service';
import { withRpcRetries } from '../../rpc/rpc-retries';
import { UploadsService } from '../../uploads/uploads.service';
import type { GenerateRequestDto } from './generate-request.dto';
import { GetGeneration } from '../records/get-generation.service';
import { parseCancelAfter } from './cancel-after';
import { SubmitDelivery } from './submit-delivery';
import { submitFingerprint } from './submit-fingerprint';
import { GenerateCheck } from './generate-check';

/** A submit: the caller's account and API key (its default webhook, its spend), the body, and the optional headers. */
export interface SubmitGenerationCommand {
  accountId: string;
  apiKeyId: string;
  body: GenerateRequestDto;
  /** `Idempotency-Key`. */
  idempotencyKey?: string;
  /** `Cancel-After`. */
  cancelAfter?: string;
}

/** What POST /generate answers. */
export interface SubmitResult {
  /** 200 with a final record, 202 with one still queued or processing. */
  status: 200 | 202;
  location: string;
  record: GenerationRecord;
  /** True when this is the stored response of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

const isFinal = (record: GenerationRecord) => record.status === 'completed' || record.status === 'failed';

/** The submit use case (API and playground): validate against the catalogue, hold the credits, queue the job. */
@Injectable()
export class SubmitGeneration {
  private readonly logger = new Logger(SubmitGeneration.name);
  private readonly checks: GenerateCheck;

  constructor(
    private readonly rpc: RpcClient,
    private readonly catalogue: ModelCatalogue,
    private readonly delivery: SubmitDelivery,
    private readonly plans: AccountPlanService,
    private readonly keys: ApiKeysService,
    private readonly idempotency: IdempotencyService,
    private readonly uploads: UploadsService,
    private readonly generations: GetGeneration,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.checks = new GenerateCheck(uploads, settings);
  }

  /**
   * Submits a generation. With an Idempotency-Key, the same key and body from the same account
   * within 24 h answer the first response again and create (and charge) nothing new.
   */
  async execute(command: SubmitGenerationCommand): Promise<SubmitResult> {
    const { body, idempotencyKey, cancelAfter } = command;
    const cancelAfterSeconds = parseCancelAfter(cancelAfter);
    if (idempotencyKey === undefined) {
      const reply = await this.submitJob(command, randomUUID(), cancelAfterSeconds);
      return { status: reply.finished ? 200 : 202, location: this.location(reply.record.id), record: reply.record, replayed: false };
    }
    const outcome = await this.idempotency.once(
      {
        accountId: command.accountId,
        key: parseIdempotencyKey(idempotencyKey),
        fingerprint: submitFingerprint(body, cancelAfterSeconds),
        // Reserve, submit (with the synchronous wait) and the recovery lookups, each bounded by the RPC timeout.
        lockMs: 3 * this.settings.rpcTimeoutMs + this.settings.syncWaitMs + 5_000,
      },
      async (jobId) => {
        const reply = await this.submitJob(command, jobId, cancelAfterSeconds);
        return this.stored(reply.record, reply.finished);
      },
      async (jobId) => {
        try {
          const record = await this.generations.execute({ accountId: command.accountId, jobId });
          return this.stored(record, isFinal(record));
        } catch (error) {
          if (error instanceof DomainError && error.code === 'not_found') return null;
          throw error;
        }
      },
    );
    const { response } = outcome;
    const record = JSON.parse(response.body) as GenerationRecord;
    return {
      status: response.status === 200 ? 200 : 202,
      location: response.location ?? this.location(record.id),
      record,
      replayed: outcome.replayed,
    };
  }

  /** Validates against the catalogue and the plan, holds the credits and queues the job under `jobId`. */
  private async submitJob(command: SubmitGenerationCommand, jobId: string, cancelAfterSeconds: number | null): Promise<SubmitGenerationReply> {
    const { body } = command;
    const [copy, plan, key] = await Promise.all([
      this.catalogue.current(),
      this.plans.get(command.accountId),
      this.keys.webhookDestination(command.apiKeyId),
    ]);
    const { model, input, metadata, webhookUrl, credits, fetched } = await this.checks.check(body, {
      accountId: command.accountId,
      plan: plan.plan,
      models: copy.models,
      key,
    });
    // Keyed by the job id: a run repeated on another billing replica holds nothing twice.
    await withRpcRetries(() => this.rpc.request<ReserveCreditsReply, ReserveCreditsRequest>(Subjects.billingReserve, {
      accountId: command.accountId,
      jobId,
      modelId: model.id,
      amount: credits,
      minimum: model.minimum_credits,
      apiKeyId: command.apiKeyId,
    })).catch(async (error: unknown) => {
      // Nothing held: the media fetched for this request are not kept either.
      await this.uploads.discard(fetched);
      throw error;
    });
    const request: SubmitGenerationRequest = {
      jobId,
      accountId: command.accountId,
      apiKeyId: command.apiKeyId,
      model: model.id,
      prompt: body.prompt,
      type: body.type,
      webhookUrl,
      plan: plan.plan,
      credits,
      parallelLimit: plan.limits.parallel_tasks,
      // A deadline shorter than the wait ends the wait with it (the job is canceled then).
      waitMs: model.synchronous ? Math.min(this.settings.syncWaitMs, cancelAfterSeconds === null ? Infinity : cancelAfterSeconds * 1000 + 1_000) : 0,
      cancelAfterSeconds,
      catalogueVersion: copy.version,
      input,
      metadata,
    };
    let reply: SubmitGenerationReply;
    try {
      reply = await this.delivery.deliver(request);
    } catch (error) {
      return this.recoverSubmit(command, jobId, error);
    }
    if (reply.finished && reply.record.status === 'failed') await this.releaseFailedHold(command.accountId, jobId);
    return reply;
  }

  /**
   * A synchronous submit that ended `failed` (an upstream refusal) answers `credits_charged: 0`; its
   * hold is released here before the answer, so a GET /api/v1/credits right after it agrees. The
   * job's generation.failed event releases it too; billing settles a hold once, so that one is a no-op.
   */
  private async releaseFailedHold(accountId: string, jobId: string): Promise<void> {
    await this.rpc
      .request<unknown, ReleaseCreditsRequest>(Subjects.billingRelease, { accountId, jobId, reason: 'generation failed' })
      .catch((error: unknown) => this.logger.warn({ err: error, jobId }, 'Hold of a failed generation left to its event'));
  }

  /**
   * The job may or may not exist when submit fails: if it does, it will finish and settle its
   * hold through its event; if it does not, the hold is released here so nothing stays reserved.
   */
  private async recoverSubmit(command: SubmitGenerationCommand, jobId: string, error: unknown): Promise<SubmitGenerationReply> {
    try {
      // The submit reached no generation replica (all down or draining): the job cannot exist.
      if (error instanceof NotDeliveredError) throw new DomainError('not_found', 'not submitted');
      const record = await this.generations.execute({ accountId: command.accountId, jobId });
      if (error instanceof DomainError && error.code === 'service_unavailable') return { finished: false, record };
    } catch (lookupError) {
      // Only a job known not to exist may lose its hold; otherwise its own event settles it.
      if (!(lookupError instanceof DomainError && lookupError.code === 'not_found')) throw error;
      await this.rpc
        .request<unknown, ReleaseCreditsRequest>(Subjects.billingRelease, {
          accountId: command.accountId,
          jobId,
          reason: 'submit failed',
        })
        .catch((releaseError: unknown) =>
          this.logger.error({ err: releaseError, jobId }, 'Hold not released after a failed submit'),
        );
    }
    throw error;
  }

  private location(jobId: string): string {
    return `/api/v1/generations/${jobId}`;
  }

  private stored(record: GenerationRecord, finished: boolean): StoredResponse {
    return { status: finished ? 200 : 202, body: JSON.stringify(record), location: this.location(record.id) };
  }
}
