import { IsArray, IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { GENERATION_TYPES, GenerationType, InputsSchema, ModelInfo, OpenAiImagesMapping, PLANS, PlanName } from '../shared/generation';
import { CALLBACK_REFUSALS, CallbackRefusal } from '../shared/provider-callbacks';
import { Nested, Nullable } from '../validation';
import { GenerationRecordPayload } from './generation-record.payload';
import type { CancelGenerationReply, ListGenerationsReply, ListModelsReply, OutputStatusReply, SubmitGenerationReply } from './generation.replies';

/**
 * The generation service's replies as classes, the source of their schemas in the message contract
 * (docs/design/messages.asyncapi.yaml); code reads the interfaces (generation.replies.ts, generation.ts).
 * `generation.get` answers a GenerationRecordPayload.
 */
export class SubmitGenerationReplyPayload implements SubmitGenerationReply {
  @IsBoolean() finished!: boolean;
  @Nested(() => GenerationRecordPayload) record!: GenerationRecordPayload;
}

export class ListGenerationsReplyPayload implements ListGenerationsReply {
  @Nested(() => GenerationRecordPayload, { each: true }) data!: GenerationRecordPayload[];
  @Nullable() @IsString() next_cursor!: string | null;
}

export class CancelGenerationReplyPayload implements CancelGenerationReply {
  @IsBoolean() finished!: boolean;
  @Nested(() => GenerationRecordPayload) record!: GenerationRecordPayload;
}

export class OutputStatusReplyPayload implements OutputStatusReply {
  @IsIn(['expired', 'unknown']) status!: OutputStatusReply['status'];
}

/** A model's mapping of OpenAI's image fields to its inputs (OpenAiImagesMapping). */
export class OpenAiImagesMappingPayload implements OpenAiImagesMapping {
  @IsOptional() @IsString() n?: string;
  @IsOptional() @IsString() size?: string;
  @IsOptional() @IsString() width?: string;
  @IsOptional() @IsString() height?: string;
  @IsOptional() @IsArray() @IsString({ each: true }) sizes?: string[];
  @IsOptional() @IsString() quality?: string;
}

/** `models.get` answers one; `models.list` a list. */
export class ModelInfoPayload implements ModelInfo {
  @IsString() id!: string;
  @IsString() name!: string;
  @IsIn(GENERATION_TYPES) type!: GenerationType;
  @IsNumber() credits!: number;
  @IsNumber() minimum_credits!: number;
  @IsBoolean() synchronous!: boolean;
  @IsIn(PLANS) min_plan!: PlanName;
  @IsString() provider!: string;
  @IsString() description!: string;
  @IsBoolean() available!: boolean;
  @Nullable() @IsString() unavailable_reason!: string | null;
  /** A JSON Schema of the model's inputs (InputsSchema, generation.ts). */
  @IsObject() inputs!: InputsSchema;
  @IsArray() @IsString({ each: true }) price_multipliers!: string[];
  @IsString() pricing!: string;
  /** OpenAiImagesMapping (generation.ts); absent from older generation services: the model is not served on /openai/v1. */
  @IsOptional() @Nested(() => OpenAiImagesMappingPayload) openai?: OpenAiImagesMappingPayload;
  /** The batch price (ModelInfo.batch_credits); absent from older generation services and for models without one. */
  @IsOptional() @IsNumber() batch_credits?: number;
}

export class ListModelsReplyPayload implements ListModelsReply {
  @Nested(() => ModelInfoPayload, { each: true }) data!: ModelInfoPayload[];
  @IsOptional() @IsString() version?: string;
}

/** `generation.provider-callback` (ProviderCallbackReply): `reason` and `message` come with `refused`. */
export class ProviderCallbackReplyPayload {
  @IsIn(['woken', 'refused']) outcome!: 'woken' | 'refused';
  @IsBoolean() verified!: boolean;
  @IsOptional() @IsIn(CALLBACK_REFUSALS) reason?: CallbackRefusal;
  @IsOptional() @IsString() message?: string;
}
