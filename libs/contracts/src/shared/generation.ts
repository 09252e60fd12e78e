/** Generation types (docs/guide/api.md). */
export const GENERATION_TYPES = ['TEXT_TO_IMAGE', 'TEXT_TO_VIDEO', 'TEXT_TO_AUDIO', 'TEXT_TO_3D'] as const;
export type GenerationType = (typeof GENERATION_TYPES)[number];

export const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const PLANS = ['free', 'lite', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLANS)[number];

/** Longest prompt accepted, in characters (documented in the README and the OpenAPI document). */
export const MAX_PROMPT_LENGTH = 4000;

/**
 * A model's inputs (`inputs` of GET /api/v1/models/{id}): the subset of JSON Schema the service
 * enforces (libs/model-inputs checks and validates it).
 */
export type InputType = 'string' | 'integer' | 'number' | 'boolean';

export interface InputProperty {
  type: InputType;
  enum?: Array<string | number>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: string | number | boolean;
  title?: string;
  description?: string;
  /** `uri`: a media input; the customer gives an https URL or an upload's id or URL (POST /api/v1/uploads). */
  format?: 'uri';
}

export interface InputsSchema {
  type: 'object';
  properties: Record<string, InputProperty>;
  required?: string[];
  additionalProperties: false;
}

/** One output of a generation (`outputs[]` of the record; `output_url` is the first one's `url`). */
export interface GenerationOutput {
  url: string;
  content_type: string;
  /** Size in bytes; null for outputs stored before sizes were recorded. */
  bytes: number | null;
  width?: number;
  height?: number;
  duration_s?: number;
}

/**
 * How OpenAI's Images API fields (`POST /openai/v1/images/generations`) become a model's `inputs`
 * (docs/guide/openai-compatible.md). Each value names one of the model's inputs; a field with no input
 * named: `n` only 1, `size` only one of `sizes` (the sizes the model makes), `quality` ignored.
 */
export interface OpenAiImagesMapping {
  /** The integer input `n` goes to (`num_outputs`). */
  n?: string;
  /** The string input `size` goes to as given (`1024x1024`). */
  size?: string;
  /** The integer inputs `size` goes to as width and height (both or neither; not with `size`). */
  width?: string;
  height?: string;
  /** The sizes accepted (`WxH`); absent: the `size` input's enum, or any size for `width`/`height`. */
  sizes?: string[];
  /** The input `quality` goes to (`low`, `high`...). */
  quality?: string;
}

/** A catalogue entry as the API shows it. */
export interface ModelInfo {
  id: string;
  name: string;
  type: GenerationType;
  /** Credits charged on success. */
  credits: number;
  /** Credits the account must have available to submit. */
  minimum_credits: number;
  /** True when POST /generate waits for the result (image models). */
  synchronous: boolean;
  /** Lowest plan that may use the model. */
  min_plan: PlanName;
  /** Who serves it: `replicate`, `fal`, `openai`...; `demo` for the built-in demo engines, which are not AI models. */
  provider: string;
  /** What it makes and how ('' when the operator wrote none). */
  description: string;
  /**
   * Whether a submit can use it now. From the generation service: the model is enabled and its
   * engine can run (a program or a credential may be missing). The gateway also applies the
   * caller's plan before showing it.
   */
  available: boolean;
  /** Why not, in words for the API's users; null when available. */
  unavailable_reason: string | null;
  /** The inputs a generation may give (`input` of POST /generate); `properties` is empty when it takes none. */
  inputs: InputsSchema;
  /** Numeric inputs the price is multiplied by (`credits` × each value as applied, rounded up); empty: a fixed price. */
  price_multipliers: string[];
  /** How the price is computed, in words (`4 credits × num_outputs (...), rounded up to a whole credit`). */
  pricing: string;
  /** How the OpenAI-compatible images route maps its fields to `inputs`; absent: the model is not served there (or an older generation service sent it). */
  openai?: OpenAiImagesMapping;
  /**
   * The price of one generation in a batch (POST /api/v1/batches), set by the operator as a discount:
   * used instead of `credits`, with the same multipliers. Absent: a batch line costs `credits`.
   */
  batch_credits?: number;
}

/**
 * The generation record on the wire (API responses and events share these fields). Its fields are
 * declared in GENERATION_RECORD_FIELDS (./generation-record.fields.ts); this interface is held to it.
 */
export interface GenerationRecord {
  id: string;
  status: JobStatus;
  type: GenerationType;
  model: string;
  prompt: string;
  output_url: string | null;
  credits_charged: number;
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** When the job was canceled (`POST .../cancel` or its `Cancel-After` deadline); such a job is `failed`. */
  canceled_at: string | null;
  /** While queued: how many of the account's jobs are ahead of it (0: next to start); null otherwise. */
  queue_position: number | null;
  /** 0 to 1 while processing, where the engine or the provider reports it; 1 once completed; else null. */
  progress: number | null;
  /** When a completed job's output is deleted (OUTPUT_RETENTION_HOURS after completion); its URL then answers 410. */
  output_expires_at: string | null;
  /** The `input` as applied at submit: validated against the model's `inputs`, defaults filled in; `{}` when none. */
  input: Record<string, unknown>;
  /** The customer's own keys and values, as given (`{}` when none). */
  metadata: Record<string, string>;
  /** Every output of a completed job, in order (`output_url` is the first's `url`); `[]` otherwise. */
  outputs: GenerationOutput[];
}
