import { IsIn, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { GENERATION_TYPES, GenerationType, JOB_STATUSES, JobStatus, PLANS, PlanName } from '../shared/generation';

/** The requests the generation service answers, checked on receipt by the transport (PAYLOAD_CLASSES). */
export class SubmitGenerationRequest {
  @IsString() jobId!: string;
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  @IsString() model!: string;
  @IsString() prompt!: string;
  @IsIn(GENERATION_TYPES) type!: GenerationType;
  /**
   * Where the generation's webhook goes, decided by the gateway at submit: the request's
   * `webhook_url`, else the key's default webhook URL as it was then; null for none. The job stores
   * it and its finished event carries it, so a default changed later does not redirect it.
   */
  @IsOptional() @IsString() webhookUrl!: string | null;
  @IsIn(PLANS) plan!: PlanName;
  /** Credits billing holds for the job (the model's price when the gateway checked it); charged on success. */
  @IsNumber() credits!: number;
  /** The account's parallel-task limit (from its plan), applied when the job is claimed. */
  @IsNumber() parallelLimit!: number;
  /** How long the caller waits for a synchronous model before taking the current state (ms). */
  @IsNumber() waitMs!: number;
  /** `Cancel-After`: the job is canceled if not finished this many seconds after submit; null for none. */
  @IsOptional() @IsNumber() cancelAfterSeconds!: number | null;
  /** The customer's `input` as the gateway applied it (validated, defaults filled, media resolved); absent: `{}`. */
  @IsOptional() @IsObject() input?: Record<string, unknown>;
  /** The customer's metadata, checked; absent: `{}`. */
  @IsOptional() @IsObject() metadata?: Record<string, string>;
  /**
   * The catalogue version (ListModelsReply.version) the gateway checked the model and held the credits
   * against: a replica whose copy differs reads the catalogue again before admitting the job.
   */
  @IsOptional() @IsString() catalogueVersion?: string;
}

export class GetGenerationRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
}

export class ListGenerationsRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
  @IsOptional() @IsString() cursor?: string;
  @IsOptional() @IsIn(JOB_STATUSES) status?: JobStatus;
  @IsOptional() @IsIn(GENERATION_TYPES) type?: GenerationType;
}

/** `POST /api/v1/generations/{id}/cancel`. */
export class CancelGenerationRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
}

/** Whether an output key names an output that existed and was deleted at the end of its retention. */
export class OutputStatusRequest {
  @IsString() outputKey!: string;
}

export class ListModelsRequest {
  @IsOptional() @IsIn(PLANS) plan?: PlanName;
}

export class GetModelRequest {
  @IsString() modelId!: string;
}
