import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import type { BatchView, CreateBatchRequest } from '@gen/contracts';
import { DomainError, ValidationError } from '@gen/errors';
import { checkMetadata } from '@gen/model-inputs';
import { RpcClient } from '@gen/transport';
import { ApiKeysService } from '../auth/api-keys.service';
import { GenerateCheck } from '../generations/submit/generate-check';
import { webhookDestination } from '../generations/submit/webhook-destination';
import type { StoredResponse } from '../idempotency/idempotency.repository';
import { IdempotencyService, parseIdempotencyKey } from '../idempotency/idempotency.service';
import { ModelCatalogue } from '../models/model-catalogue';
import { AccountPlanService } from '../plans/account-plan.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { UploadsService } from '../uploads/uploads.service';
import { readBatchFile } from './batch-file';
import { BatchHandover } from './batch-handover';
import { BatchLineChecks } from './batch-line-checks';
import { completionWindowSeconds, DEFAULT_COMPLETION_WINDOW, InvalidLines } from './batch-options';
import { BatchQueries } from './batch-queries.service';
import { BatchLinesRefused } from './batch-refusal';

/** A batch's options, from the query (JSONL body) or the JSON body (uploaded file). */
export interface BatchOptions {
  completionWindow?: string;
  invalidLines?: InvalidLines;
  webhookUrl?: string;
  metadata?: Record<string, string>;
}

export interface CreateBatchCommand {
  accountId: string;
  apiKeyId: string;
  /** The file itself (the request's body), or the id of a JSONL upload of the account. */
  file: { content: Buffer } | { inputFileId: string };
  options: BatchOptions;
  /** `Idempotency-Key`. */
  idempotencyKey?: string;
}

export interface CreateBatchResult {
  location: string;
  batch: BatchView;
  /** True when this is the stored answer of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

/** How long one creation may take before a repeat with its Idempotency-Key takes over. */
const CREATE_LOCK_MS = 10 * 60 * 1000;

const location = (batchId: string) => `/api/v1/batches/${batchId}`;

/**
 * Creates a batch (docs/design/batches.md): reads the file, checks and prices every line as a submit
 * would, and hands the batch to generation (create, lines, seal). Nothing is held: each line's credits
 * are held when generation admits it.
 */
@Injectable()
export class CreateBatch {
  private readonly lineChecks: BatchLineChecks;
  private readonly handover: BatchHandover;

  constructor(
    rpc: RpcClient,
    private readonly catalogue: ModelCatalogue,
    private readonly plans: AccountPlanService,
    private readonly keys: ApiKeysService,
    private readonly idempotency: IdempotencyService,
    private readonly uploads: UploadsService,
    private readonly batches: BatchQueries,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.lineChecks = new BatchLineChecks(new GenerateCheck(uploads, settings));
    this.handover = new BatchHandover(rpc);
  }

  async execute(command: CreateBatchCommand): Promise<CreateBatchResult> {
    const window = command.options.completionWindow ?? DEFAULT_COMPLETION_WINDOW;
    const windowSeconds = completionWindowSeconds(window);
    if (command.idempotencyKey === undefined) {
      const batch = await this.create(command, randomUUID(), window, windowSeconds);
      return { location: location(batch.id), batch, replayed: false };
    }
    const outcome = await this.idempotency.once(
      { accountId: command.accountId, key: parseIdempotencyKey(command.idempotencyKey), fingerprint: fingerprint(command), lockMs: CREATE_LOCK_MS },
      async (batchId) => stored(await this.create(command, batchId, window, windowSeconds)),
      async (batchId) => {
        try {
          return stored(await this.batches.get({ accountId: command.accountId, batchId }));
        } catch (error) {
          if (error instanceof DomainError && error.code === 'not_found') return null;
          throw error;
        }
      },
    );
    const batch = JSON.parse(outcome.response.body) as BatchView;
    return { location: outcome.response.location ?? location(batch.id), batch, replayed: outcome.replayed };
  }

  private async create(command: CreateBatchCommand, batchId: string, window: string, windowSeconds: number): Promise<BatchView> {
    const { accountId, apiKeyId, options } = command;
    const content = 'content' in command.file ? command.file.content : await this.uploads.readJsonl(accountId, command.file.inputFileId, 'input_file_id');
    const read = readBatchFile(content);
    const [copy, plan, key] = await Promise.all([this.catalogue.current(), this.plans.get(accountId), this.keys.webhookDestination(apiKeyId)]);
    const metadata = checkMetadata(options.metadata);
    if (!metadata.ok) throw new ValidationError(metadata.errors.join('; '));
    // The batch's own destination (batch.completed): resolved as a submit's is.
    const webhookUrl = webhookDestination(options.webhookUrl, key, this.settings.webhookPolicy);
    const { lines, invalid } = await this.lineChecks.check(read, { accountId, plan: plan.plan, models: copy.models, key });
    if (lines.length === 0 || (invalid.length > 0 && (options.invalidLines ?? 'reject') === 'reject')) throw new BatchLinesRefused(invalid, read.length);
    const create: CreateBatchRequest = {
      batchId,
      accountId,
      apiKeyId,
      plan: plan.plan,
      parallelLimit: plan.limits.parallel_tasks,
      completionWindow: window,
      completionWindowSeconds: windowSeconds,
      webhookUrl,
      metadata: metadata.metadata,
      totalLines: read.length,
      catalogueVersion: copy.version,
    };
    await this.handover.send(create, lines, invalid);
    return this.batches.get({ accountId, batchId });
  }
}

/** Two requests are "the same" when their file (or the upload it names) and options are. */
function fingerprint(command: CreateBatchCommand): string {
  const file = 'content' in command.file ? `sha256:${createHash('sha256').update(command.file.content).digest('hex')}` : `upload:${command.file.inputFileId}`;
  return JSON.stringify({ file, options: command.options });
}

function stored(batch: BatchView): StoredResponse {
  return { status: 201, body: JSON.stringify(batch), location: location(batch.id) };
}
