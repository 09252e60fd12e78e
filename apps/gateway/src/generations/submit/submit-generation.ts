import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  CancelGenerationReply,
  CancelGenerationRequest,
  GenerationRecord,
  GetGenerationRequest,
  ListGenerationsReply,
  ListGenerationsRequest,
  ListWebhookDeliveriesReply,
  ListWebhookDeliveriesRequest,
  RedeliverWebhookReply,
  RedeliverWebhookRequest,
  ModelInfo,
  modelForPlan,
  refuseModelUse,
  ReleaseCreditsRequest,
  ReserveCreditsReply,
  ReserveCreditsRequest,
  SubmitGenerationReply,
  SubmitGenerationRequest,
  Subjects,
} from '@gen/contracts';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '@gen/errors';
import { checkMetadata, InputValidator, priceFor } from '@gen/model-inputs';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { ApiKeysService, Principal } from '../../auth/api-keys.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../../gateway.tokens';
import type { StoredResponse } from '../../idempotency/idempotency.repository';
import { IdempotencyService, parseIdempotencyKey } from '../../idempotency/idempotency.service';
import { AccountPlanService } from '../../plans/account-plan.service';
import { ModelCatalogue } from '../../models/model-catalogue';
import { SubmitDelivery } from './submit-delivery';
import { withRpcRetries } from '../../rpc/rpc-retries';
import { parseCancelAfter } from './cancel-after';
import type { GenerateRequestDto } from '../generate-request.dto';
import { submitFingerprint } from './submit-fingerprint';
import { resolveMediaInputs } from '../../uploads/media-inputs';
import { UploadsService } from '../../uploads/uploads.service';
import type { ListGenerationsQueryDto } from '../list-generations-query.dto';

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

/** The submit use case: validate against the catalogue, hold the credits, queue the job. */
@Injectable()
export class GenerationsService {
  private readonly logger = new Logger(GenerationsService.name);
  /** Compiles each model's inputs schema once and keeps it; media inputs may name uploads. */
  private readonly inputs: InputValidator;

  constructor(
    private readonly rpc: RpcClient,
    private readonly catalogue: ModelCatalogue,
    private readonly delivery: SubmitDelivery,
    private readonly plans: AccountPlanService,
    private readonly keys: ApiKeysService,
    private readonly idempotency: IdempotencyService,
    private readonly uploads: UploadsService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.inputs = new InputValidator({ contentBase: settings.cdnBaseUrl ?? `${settings.publicBaseUrl}/cdn`, uploadIds: true, allowHttp: settings.webhookPolicy.allowHttp });
  }

  /**
   * Submits a generation. With an Idempotency-Key, the same key and body from the same account
   * within 24 h answer the first response again and create (and charge) nothing new.
   */
  async submit(principal: Principal, body: GenerateRequestDto, idempotencyKey?: string, cancelAfter?: string): Promise<SubmitResult> {
    const cancelAfterSeconds = parseCancelAfter(cancelAfter);
    if (idempotencyKey === undefined) {
      const reply = await this.submitJob(principal, body, randomUUID(), cancelAfterSeconds);
      return { status: reply.finished ? 200 : 202, location: this.location(reply.record.id), record: reply.record, replayed: false };
    }
    const outcome = await this.idempotency.once(
      {
        accountId: principal.accountId,
        key: parseIdempotencyKey(idempotencyKey),
        fingerprint: submitFingerprint(body, cancelAfterSeconds),
        // Reserve, submit (with the synchronous wait) and the recovery lookups, each bounded by the RPC timeout.
        lockMs: 3 * this.settings.rpcTimeoutMs + this.settings.syncWaitMs + 5_000,
      },
      async (jobId) => {
        const reply = await this.submitJob(principal, body, jobId, cancelAfterSeconds);
        return this.stored(reply.record, reply.finished);
      },
      async (jobId) => {
        try {
          const record = await this.get(principal, jobId);
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
  private async submitJob(principal: Principal, body: GenerateRequestDto, jobId: string, cancelAfterSeconds: number | null): Promise<SubmitGenerationReply> {
    const [copy, plan, key] = await Promise.all([
      this.catalogue.current(),
      this.plans.get(principal.accountId),
      this.keys.webhookDestination(principal.apiKeyId),
    ]);
    const catalogue = copy.models;
    const refusal = refuseModelUse(catalogue.get(body.model), { model: body.model, type: body.type, plan: plan.plan });
    if (refusal) throw new DomainError(refusal.code, refusal.message);
    const model = catalogue.get(body.model) as ModelInfo;
    // The input and metadata, checked before anything is held: a refused one stores and holds nothing.
    const checked = this.inputs.check(model.inputs, body.input);
    const metadata = checkMetadata(body.metadata);
    const problems = [...(checked.ok ? [] : checked.errors), ...(metadata.ok ? [] : metadata.errors)];
    if (problems.length > 0 || !checked.ok || !metadata.ok) throw new ValidationError(problems.join('; '));
    const webhookUrl = this.webhookDestination(body.webhook_url, key);
    // Uploads named and media URLs fetched (docs/guide/uploads.md): the provider gets URLs it can read.
    const { input, fetched } = await resolveMediaInputs(this.uploads, principal.accountId, model.inputs, checked.input);
    // The price follows the inputs it names (docs/guide/models.md, "Prices that follow inputs").
    const credits = priceFor(model.credits, model.price_multipliers, input);
    // Keyed by the job id: a run repeated on another billing replica holds nothing twice.
    await withRpcRetries(() => this.rpc.request<ReserveCreditsReply, ReserveCreditsRequest>(Subjects.billingReserve, {
      accountId: principal.accountId,
      jobId,
      modelId: model.id,
      amount: credits,
      minimum: model.minimum_credits,
      apiKeyId: principal.apiKeyId,
    })).catch(async (error: unknown) => {
      // Nothing held: the media fetched for this request are not kept either.
      await this.uploads.discard(fetched);
      throw error;
    });
    const request: SubmitGenerationRequest = {
      jobId,
      accountId: principal.accountId,
      apiKeyId: principal.apiKeyId,
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
      metadata: metadata.metadata,
    };
    try {
      return await this.delivery.deliver(request);
    } catch (error) {
      return this.recoverSubmit(principal, jobId, error);
    }
  }

  get(principal: Principal, jobId: string): Promise<GenerationRecord> {
    return withRpcRetries(() =>
      this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, {
        accountId: principal.accountId,
        jobId,
      }),
    );
  }

  list(principal: Principal, query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return withRpcRetries(() =>
      this.rpc.request<ListGenerationsReply, ListGenerationsRequest>(Subjects.generationList, {
        accountId: principal.accountId,
        limit: query.limit ?? 20,
        cursor: query.cursor,
        status: query.status,
        type: query.type,
      }),
    );
  }

  /** The catalogue as this account sees it: each model `available` or not, and why. */
  async listModels(principal: Principal): Promise<ModelInfo[]> {
    const [copy, plan] = await Promise.all([this.catalogue.current(), this.plans.get(principal.accountId)]);
    return [...copy.models.values()].map((m) => modelForPlan(m, plan.plan));
  }

  /** One model as this account sees it; 404 for an unknown id. */
  async getModel(principal: Principal, modelId: string): Promise<ModelInfo> {
    const [copy, plan] = await Promise.all([this.catalogue.current(), this.plans.get(principal.accountId)]);
    const model = copy.models.get(modelId);
    if (!model) throw new NotFoundError(`Unknown model "${modelId.slice(0, 100)}". See GET /api/v1/models.`);
    return modelForPlan(model, plan.plan);
  }

  /** Cancels one of the caller's generations (docs/guide/generations.md, "Cancel"). */
  async cancel(principal: Principal, jobId: string): Promise<GenerationRecord> {
    // Canceling twice answers the same: safe to send again to another replica.
    const reply = await withRpcRetries(() =>
      this.rpc.request<CancelGenerationReply, CancelGenerationRequest>(Subjects.generationCancel, {
        accountId: principal.accountId,
        jobId,
      }),
    );
    return reply.record;
  }

  /** The webhook deliveries of one of the caller's generations, with their attempts. */
  async deliveries(principal: Principal, jobId: string): Promise<ListWebhookDeliveriesReply> {
    await this.get(principal, jobId); // 404 unless it is the caller's generation
    return this.rpc.request<ListWebhookDeliveriesReply, ListWebhookDeliveriesRequest>(Subjects.webhooksDeliveriesList, {
      accountId: principal.accountId,
      jobId,
    });
  }

  /** A new delivery (new delivery id) of the generation's event, to the generation's destination. */
  async redeliver(principal: Principal, jobId: string): Promise<RedeliverWebhookReply> {
    const record = await this.get(principal, jobId);
    if (record.status !== 'completed' && record.status !== 'failed') {
      throw new ConflictError('This generation has not finished; its webhook is sent when it does.');
    }
    return this.rpc.request<RedeliverWebhookReply, RedeliverWebhookRequest>(Subjects.webhooksRedeliver, {
      accountId: principal.accountId,
      jobId,
    });
  }

  /**
   * Where this generation's webhook goes, decided here, once: the request's `webhook_url` (checked
   * against the deployment's policy), else the key's default URL as it is now, else nowhere (null).
   * The job stores it and its event carries it, so a default changed after submit does not redirect
   * this generation's webhook, and the webhooks service never asks the gateway for it.
   * Every delivery is signed: a destination on a key without a signing secret is refused (422).
   * A key's default was checked against the same policy when it was set; the sender checks every
   * URL again before each attempt (a policy tightened since then refuses it there).
   */
  private webhookDestination(requested: string | undefined, key: { defaultWebhookUrl: string | null; hasSecret: boolean }): string | null {
    const generateOne = 'Generate one in the dashboard (Settings, API Keys) and retry.';
    if (requested !== undefined) {
      const checked = validateWebhookUrl(requested, this.settings.webhookPolicy);
      if (!checked.ok) throw new ValidationError(`webhook_url: ${checked.reason}`);
      if (!key.hasSecret) {
        throw new ValidationError(`webhook_url: this API key has no webhook signing secret, so its events cannot be signed. ${generateOne}`);
      }
      return checked.url.href;
    }
    if (key.defaultWebhookUrl === null) return null;
    if (!key.hasSecret) {
      throw new ValidationError(
        `This API key has a default webhook URL but no webhook signing secret, so this generation's event could not be signed. ${generateOne}`,
      );
    }
    return key.defaultWebhookUrl;
  }

  /**
   * The job may or may not exist when submit fails: if it does, it will finish and settle its
   * hold through its event; if it does not, the hold is released here so nothing stays reserved.
   */
  private async recoverSubmit(principal: Principal, jobId: string, error: unknown): Promise<SubmitGenerationReply> {
    try {
      // The submit reached no generation replica (all down or draining): the job cannot exist.
      if (error instanceof NotDeliveredError) throw new DomainError('not_found', 'not submitted');
      const record = await this.get(principal, jobId);
      if (error instanceof DomainError && error.code === 'service_unavailable') return { finished: false, record };
    } catch (lookupError) {
      // Only a job known not to exist may lose its hold; otherwise its own event settles it.
      if (!(lookupError instanceof DomainError && lookupError.code === 'not_found')) throw error;
      await this.rpc
        .request<unknown, ReleaseCreditsRequest>(Subjects.billingRelease, {
          accountId: principal.accountId,
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
