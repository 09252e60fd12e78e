import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  GenerationRecord,
  GetGenerationRequest,
  ListGenerationsReply,
  ListGenerationsRequest,
  ListModelsReply,
  ListWebhookDeliveriesReply,
  ListWebhookDeliveriesRequest,
  RedeliverWebhookReply,
  RedeliverWebhookRequest,
  ModelInfo,
  ReleaseCreditsRequest,
  ReserveCreditsReply,
  ReserveCreditsRequest,
  SubmitGenerationReply,
  SubmitGenerationRequest,
  Subjects,
} from '@gen/contracts';
import { ConflictError, DomainError, ForbiddenError, ValidationError } from '@gen/errors';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { ApiKeysService, Principal } from '../auth/api-keys.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';
import type { StoredResponse } from '../idempotency/idempotency.repository';
import { IdempotencyService, parseIdempotencyKey } from '../idempotency/idempotency.service';
import { AccountPlanService } from './account-plan.service';
import type { GenerateRequestDto } from './generate-request.dto';
import type { ListGenerationsQueryDto } from './list-generations-query.dto';

const PLAN_RANK = { free: 0, lite: 1, pro: 2, enterprise: 3 } as const;

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
  private models?: { value: Promise<Map<string, ModelInfo>>; expires: number };

  constructor(
    private readonly rpc: RpcClient,
    private readonly plans: AccountPlanService,
    private readonly keys: ApiKeysService,
    private readonly idempotency: IdempotencyService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /**
   * Submits a generation. With an Idempotency-Key, the same key and body from the same account
   * within 24 h answer the first response again and create (and charge) nothing new.
   */
  async submit(principal: Principal, body: GenerateRequestDto, idempotencyKey?: string): Promise<SubmitResult> {
    if (idempotencyKey === undefined) {
      const reply = await this.submitJob(principal, body, randomUUID());
      return { status: reply.finished ? 200 : 202, location: this.location(reply.record.id), record: reply.record, replayed: false };
    }
    const outcome = await this.idempotency.once(
      {
        accountId: principal.accountId,
        key: parseIdempotencyKey(idempotencyKey),
        fingerprint: JSON.stringify([body.model, body.prompt, body.type, body.webhook_url ?? null]),
        // Reserve, submit (with the synchronous wait) and the recovery lookups, each bounded by the RPC timeout.
        lockMs: 3 * this.settings.rpcTimeoutMs + this.settings.syncWaitMs + 5_000,
      },
      async (jobId) => {
        const reply = await this.submitJob(principal, body, jobId);
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
  private async submitJob(principal: Principal, body: GenerateRequestDto, jobId: string): Promise<SubmitGenerationReply> {
    const [catalogue, plan] = await Promise.all([this.catalogue(), this.plans.get(principal.accountId)]);
    const model = catalogue.get(body.model);
    if (!model) throw new ValidationError(`model: unknown model "${body.model}". See GET /api/v1/models.`);
    if (model.type !== body.type) {
      throw new ValidationError(`type: model "${model.id}" makes ${model.type}, not ${body.type}.`);
    }
    if (PLAN_RANK[plan.plan] < PLAN_RANK[model.min_plan]) {
      throw new ForbiddenError(`Model "${model.id}" needs the ${model.min_plan} plan or above; this account is on ${plan.plan}.`);
    }
    const webhookUrl = body.webhook_url === undefined ? null : await this.checkWebhookUrl(principal, body.webhook_url);
    await this.rpc.request<ReserveCreditsReply, ReserveCreditsRequest>(Subjects.billingReserve, {
      accountId: principal.accountId,
      jobId,
      modelId: model.id,
      amount: model.credits,
      minimum: model.minimum_credits,
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
      parallelLimit: plan.limits.parallel_tasks,
      waitMs: model.synchronous ? this.settings.syncWaitMs : 0,
    };
    try {
      return await this.rpc.request<SubmitGenerationReply, SubmitGenerationRequest>(
        Subjects.generationSubmit,
        request,
        this.settings.rpcTimeoutMs + request.waitMs,
      );
    } catch (error) {
      return this.recoverSubmit(principal, jobId, error);
    }
  }

  get(principal: Principal, jobId: string): Promise<GenerationRecord> {
    return this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, {
      accountId: principal.accountId,
      jobId,
    });
  }

  list(principal: Principal, query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.rpc.request<ListGenerationsReply, ListGenerationsRequest>(Subjects.generationList, {
      accountId: principal.accountId,
      limit: query.limit ?? 20,
      cursor: query.cursor,
      status: query.status,
      type: query.type,
    });
  }

  async listModels(principal: Principal): Promise<Array<ModelInfo & { available: boolean }>> {
    const [catalogue, plan] = await Promise.all([this.catalogue(), this.plans.get(principal.accountId)]);
    return [...catalogue.values()].map((m) => ({ ...m, available: PLAN_RANK[plan.plan] >= PLAN_RANK[m.min_plan] }));
  }

  /** The webhook deliveries of one of the caller's generations, with their attempts. */
  async deliveries(principal: Principal, jobId: string): Promise<ListWebhookDeliveriesReply> {
    await this.get(principal, jobId); // 404 unless it is the caller's generation
    return this.rpc.request<ListWebhookDeliveriesReply, ListWebhookDeliveriesRequest>(Subjects.webhooksDeliveriesList, {
      accountId: principal.accountId,
      jobId,
    });
  }

  /** A new delivery (new delivery id) of the generation's event to its current destination. */
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

  /** Every delivery is signed, so a destination needs an allowed URL and a key with a signing secret. */
  private async checkWebhookUrl(principal: Principal, url: string): Promise<string> {
    const checked = validateWebhookUrl(url, this.settings.webhookPolicy);
    if (!checked.ok) throw new ValidationError(`webhook_url: ${checked.reason}`);
    const { secret } = await this.keys.webhookSettings(principal.apiKeyId);
    if (!secret) {
      throw new ValidationError(
        'webhook_url: this API key has no webhook signing secret, so its events cannot be signed. ' +
          'Generate one in the dashboard (Settings, API Keys) and retry.',
      );
    }
    return checked.url.href;
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

  private catalogue(): Promise<Map<string, ModelInfo>> {
    const now = Date.now();
    if (this.models && this.models.expires > now) return this.models.value;
    const value = this.rpc
      .request<ListModelsReply>(Subjects.modelsList, {})
      .then((reply) => new Map(reply.data.map((m) => [m.id, m])));
    this.models = { value, expires: now + 60_000 };
    value.catch(() => (this.models = undefined));
    return value;
  }
}
