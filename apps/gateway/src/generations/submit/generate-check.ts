import { ModelInfo, PlanName, refuseModelUse } from '@gen/contracts';
import { DomainError, ValidationError } from '@gen/errors';
import { checkMetadata, InputValidator, priceFor } from '@gen/model-inputs';
import type { GatewaySettings } from '../../settings/gateway.tokens';
import { resolveMediaInputs } from '../../uploads/media-inputs';
import type { UploadRow } from '../../uploads/uploads.repository';
import type { UploadsService } from '../../uploads/uploads.service';
import type { GenerateRequestDto } from './generate-request.dto';
import { webhookDestination } from './webhook-destination';

/** What a body is checked against: one read of the catalogue, the account's plan and the key's webhook. */
export interface GenerateCheckContext {
  accountId: string;
  plan: PlanName;
  models: ReadonlyMap<string, ModelInfo>;
  key: { defaultWebhookUrl: string | null; hasSecret: boolean };
}

/** A body as it will run: the model, the input applied (defaults filled, media named), its price. */
export interface CheckedGenerate {
  model: ModelInfo;
  input: Record<string, unknown>;
  metadata: Record<string, string>;
  webhookUrl: string | null;
  credits: number;
  /** Media fetched for it (a submit's outside URLs): removed by the caller if the request is then refused. */
  fetched: UploadRow[];
}

/**
 * The check of a `POST /api/v1/generate` body after its DTO (the same for a submit and for each line
 * of a batch, docs/design/batches.md): the model exists and the plan may use it, the type, the input
 * against the model's `inputs`, the metadata, the webhook destination, the media; then its price.
 * A batch line (`batch: true`) takes uploads only (nothing is fetched), has no webhook unless it names
 * one, and costs the model's `batch_credits` where the operator set one.
 */
export class GenerateCheck {
  /** Compiles each model's inputs schema once and keeps it; media inputs may name uploads. */
  private readonly inputs: InputValidator;

  constructor(
    private readonly uploads: UploadsService,
    private readonly settings: GatewaySettings,
  ) {
    this.inputs = new InputValidator({
      contentBase: settings.cdnBaseUrl ?? `${settings.publicBaseUrl}/cdn`,
      uploadIds: true,
      allowHttp: (settings.mediaFetchPolicy ?? settings.webhookPolicy).allowHttp,
    });
  }

  async check(body: GenerateRequestDto, context: GenerateCheckContext, options: { batch: boolean } = { batch: false }): Promise<CheckedGenerate> {
    const found = context.models.get(body.model);
    const refusal = refuseModelUse(found, { model: body.model, type: body.type, plan: context.plan });
    if (refusal) throw new DomainError(refusal.code, refusal.message);
    const model = found as ModelInfo;
    // The input and metadata, checked before anything is held: a refused one stores and holds nothing.
    const checked = this.inputs.check(model.inputs, body.input);
    const metadata = checkMetadata(body.metadata);
    const problems = [...(checked.ok ? [] : checked.errors), ...(metadata.ok ? [] : metadata.errors)];
    if (problems.length > 0 || !checked.ok || !metadata.ok) throw new ValidationError(problems.join('; '));
    // A batch's lines send no per-generation webhook unless the line names one (the batch has its own).
    const webhookUrl =
      options.batch && body.webhook_url === undefined ? null : webhookDestination(body.webhook_url, context.key, this.settings.webhookPolicy);
    // Uploads named and media URLs fetched (docs/guide/uploads.md): the provider gets URLs it can read.
    const { input, fetched } = await resolveMediaInputs(this.uploads, context.accountId, model.inputs, checked.input, { fetch: !options.batch });
    // The price follows the inputs it names (docs/guide/models.md, "Prices that follow inputs").
    const base = options.batch ? (model.batch_credits ?? model.credits) : model.credits;
    const credits = priceFor(base, model.price_multipliers, input);
    return { model, input, metadata: metadata.metadata, webhookUrl, credits, fetched };
  }
}
