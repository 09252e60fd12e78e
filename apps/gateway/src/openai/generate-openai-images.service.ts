import { Inject, Injectable, Optional } from '@nestjs/common';
import type { GenerationRecord, ModelInfo, OpenAiImagesMapping } from '@gen/contracts';
import { isObjectKey, OutputStorage } from '@gen/storage';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { isFinalRecord, JobWaits } from '../generations/live/job-waits';
import { GetGeneration } from '../generations/records/get-generation.service';
import { SubmitGeneration } from '../generations/submit/submit-generation.service';
import { ModelCatalogue } from '../models/model-catalogue';
import type { OpenAiImageRequestDto } from './image-request.dto';
import { openAiInput } from './openai-fields';
import { OpenAiRefusal } from './openai-refusal.error';

/** OpenAI's images response (`ImagesResponse`). */
export interface OpenAiImagesResponse {
  created: number;
  data: Array<{ url: string } | { b64_json: string }>;
}

/** How a provider's refusal reads on a failed record (generation's upstream-failure.ts, `refused`). */
const PROVIDER_REFUSED = 'The model provider refused this request';

/**
 * POST /openai/v1/images/generations: the request mapped to the model's inputs by its catalogue
 * `openai` block, then one generation through the same submit as POST /api/v1/generate (held,
 * charged, listed, webhooks as configured), waited for, and answered in OpenAI's shape.
 */
@Injectable()
export class GenerateOpenAiImages {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly submit: SubmitGeneration,
    private readonly generations: GetGeneration,
    private readonly waits: JobWaits,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Optional() @Inject(OutputStorage) private readonly storage: OutputStorage | null,
  ) {}

  /** With `idempotencyKey` (the `Idempotency-Key` header), a repeat within 24 h answers the same generation, as on /api/v1. */
  async execute(command: { accountId: string; apiKeyId: string; body: OpenAiImageRequestDto; idempotencyKey?: string }): Promise<OpenAiImagesResponse> {
    const { body } = command;
    const model = (await this.catalogue.current()).models.get(body.model);
    if (!model) throw new OpenAiRefusal('model_not_found', `The model "${body.model}" does not exist. See GET /openai/v1/models.`, 'model');
    if (!model.openai) {
      throw new OpenAiRefusal(
        'model_not_supported',
        `The model "${body.model}" is not served by the OpenAI-compatible API: its catalogue entry maps no OpenAI fields. ` +
          'See GET /openai/v1/models for the models served here, or use POST /api/v1/generate.',
        'model',
      );
    }
    const input = openAiInput(model as ModelInfo & { openai: OpenAiImagesMapping }, body);
    const result = await this.submit.execute({
      accountId: command.accountId,
      apiKeyId: command.apiKeyId,
      body: {
        model: model.id,
        prompt: body.prompt,
        type: 'TEXT_TO_IMAGE',
        input,
        ...(body.user !== undefined && { metadata: { openai_user: body.user } }),
      },
      idempotencyKey: command.idempotencyKey,
    });
    const record = isFinalRecord(result.record) ? result.record : await this.waitFor(command.accountId, result.record.id);
    if (record.status === 'failed') {
      const message = record.error ?? 'The generation failed.';
      throw new OpenAiRefusal(message.startsWith(PROVIDER_REFUSED) ? 'content_policy_violation' : 'generation_failed', message, message.startsWith(PROVIDER_REFUSED) ? 'prompt' : null);
    }
    const format = body.response_format ?? 'url';
    const data = await Promise.all(record.outputs.map(async (output) => (format === 'b64_json' ? { b64_json: await this.base64(output.url) } : { url: output.url })));
    return { created: Math.floor(Date.parse(record.created_at) / 1000), data };
  }

  /**
   * A job not finished within the submit's own wait (SYNC_WAIT_MS) gets one more such wait: OpenAI's
   * clients expect the images in the answer. Past it, the job goes on and the caller is told where.
   */
  private async waitFor(accountId: string, jobId: string): Promise<GenerationRecord> {
    const wait = this.waits.watch(jobId);
    let timer: NodeJS.Timeout | undefined;
    try {
      const now = await this.generations.execute({ accountId, jobId });
      if (isFinalRecord(now)) return now;
      const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.settings.syncWaitMs)));
      const final = await Promise.race([wait.final, timeout]);
      if (final) return this.generations.execute({ accountId, jobId });
    } finally {
      clearTimeout(timer);
      wait.stop();
    }
    throw new OpenAiRefusal(
      'generation_pending',
      `The image is still being made; it is generation ${jobId}: GET /api/v1/generations/${jobId} answers it when done (charged only if it completes).`,
    );
  }

  /** An output's bytes, base64: read from the storage by its key (the last two parts of its URL). */
  private async base64(url: string): Promise<string> {
    const key = new URL(url).pathname.split('/').slice(-2).join('/');
    const object = this.storage && isObjectKey(key) ? await this.storage.find(key) : null;
    if (!object) throw new OpenAiRefusal('generation_failed', 'The image was made but could not be read back; use response_format "url".');
    const chunks: Buffer[] = [];
    for await (const chunk of object.open()) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('base64');
  }
}
