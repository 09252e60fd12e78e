// Generated from the OpenAPI document (/api/v1/openapi.json) by test/support/sdk-types.ts: do not edit.
// test/e2e/sdk.e2e-spec.ts fails when this file and the live document differ; to rewrite it:
//   WRITE_SDK_TYPES=1 npx jest --config jest.config.js test/e2e/sdk.e2e-spec.ts

export interface AccountLowBalanceEvent {
  /** Equal to the X-Service-Event header. */
  event: "account.low_balance";
  /** The event: the same in every delivery of it (one per destination URL). Drop duplicates by it. */
  id: string;
  /** Your account. */
  account_id: string;
  /** The alert threshold set for the account, in credits. */
  threshold: number;
  /** Available credits right after the change that crossed the threshold. */
  available: number;
  /** When the balance crossed the threshold. */
  created_at: string;
}

export interface Batch {
  id: string;
  object: "batch";
  /** `canceling`: canceled, with admitted generations still running. */
  status: "in_progress" | "canceling" | "completed" | "canceled" | "expired";
  /** As given at creation (`24h`, `90m`, `3600s`). */
  completion_window: string;
  created_at: string;
  /** The end of the completion window: lines not admitted by then are `expired`. */
  expires_at: string;
  /** When it reached `completed`, `canceled` or `expired`. */
  finished_at: string | null;
  canceled_at: string | null;
  request_counts: BatchRequestCounts;
  /** Credits charged so far for the batch's completed lines. */
  credits_charged: number;
  /** Where `batch.completed` goes (the request's `webhook_url`, else the key's default); null: nowhere. */
  webhook_url: string | null;
  metadata: Record<string, string>;
}

export interface BatchLineError {
  /** `validation_error`, `insufficient_credits`, `generation_failed`, `canceled`, `expired`, ... */
  code: string;
  message: string;
}

export interface BatchLineResult {
  /** The line's number in the file, from 1. */
  line: number;
  /** Null only for an invalid line whose `custom_id` could not be read. */
  custom_id: string | null;
  outcome: "completed" | "failed" | "canceled" | "expired" | "invalid";
  /** The line's generation, once it was admitted. */
  generation: Generation | null;
  /** Why it did not complete; null when completed. */
  error: BatchLineError | null;
}

export interface BatchPage {
  data: Batch[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface BatchRequestCounts {
  /** Every line of the file: the sum of the others. */
  total: number;
  /** Refused by the check at creation (`invalid_lines: "skip"`); never charged. */
  invalid: number;
  /** Not admitted yet: no credits held. */
  waiting: number;
  /** Admitted (credits held), queued. */
  queued: number;
  processing: number;
  completed: number;
  /** Its generation failed, or its credits could not be held (nothing charged). */
  failed: number;
  canceled: number;
  /** Not admitted within the completion window; never charged. */
  expired: number;
}

export interface CreateBatchRequest {
  /** How long the batch may take: `<n>s`, `<n>m` or `<n>h`, from 60s to 168h. */
  completion_window?: string;
  /** `reject`: any bad line refuses the whole file (422 naming the lines); `skip`: the good lines run, the bad ones are in the errors file as `invalid`. */
  invalid_lines?: "reject" | "skip";
  /** Where `batch.completed` goes; else the API key's default webhook URL. */
  webhook_url?: string;
  /** The `id` of a JSONL upload of this account (`POST /api/v1/uploads`, `Content-Type: application/jsonl`). */
  input_file_id: string;
  /** Your own keys and values, returned on the batch (the generation's rules: 16 keys of up to 40 characters, values of up to 500). */
  metadata?: Record<string, string>;
}

export interface Credits {
  plan: "free" | "lite" | "pro" | "enterprise";
  /** Credits that can be reserved now. */
  available: number;
  /** Credits reserved by jobs not yet finished. */
  held: number;
  limits: PlanLimits;
}

export interface ErrorBody {
  /** Machine-readable; each code has one HTTP status (402 has two: insufficient_credits, spending_cap_reached). */
  code: "bad_request" | "unauthorized" | "insufficient_credits" | "spending_cap_reached" | "forbidden" | "not_found" | "method_not_allowed" | "request_timeout" | "conflict" | "gone" | "payload_too_large" | "uri_too_long" | "unsupported_media_type" | "validation_error" | "rate_limit_exceeded" | "headers_too_large" | "internal_error" | "service_unavailable";
  /** The HTTP status, repeated. */
  status: number;
  /** What went wrong, for a person to read. */
  message: string;
  /** Equal to the X-Request-Id response header. */
  request_id: string;
}

export interface ErrorEnvelope {
  error: ErrorBody;
}

export interface GenerateRequest {
  /** A model id from GET /api/v1/models. */
  model: string;
  /** Trimmed; 1 to 4000 characters. */
  prompt: string;
  /** Must match the model's type. */
  type: "TEXT_TO_IMAGE" | "TEXT_TO_VIDEO" | "TEXT_TO_AUDIO" | "TEXT_TO_3D";
  /** Where to POST the signed result; overrides the key's default webhook URL for this generation. */
  webhook_url?: string;
  /** The model's inputs (`inputs` of GET /api/v1/models/{id}): validated against its schema, defaults filled in; each refused field is named in the 422 (`input.seed: must be an integer from 0 to 2147483647`). A media input (`format: "uri"`) takes an upload's `id` or `url` (POST /api/v1/uploads) or an https URL, which is fetched at submit (SSRF-safe, at most UPLOAD_MAX_MB, media only); the input as applied names the file by the URL the provider reads. */
  input?: Record<string, unknown>;
  /** Your own keys and values, stored and returned on the record and in the webhook body, never read by the service: at most 16 keys of up to 40 characters, string values of up to 500 characters (Stripe's rules). */
  metadata?: Record<string, string>;
}

export interface Generation {
  id: string;
  status: "queued" | "processing" | "completed" | "failed";
  type: "TEXT_TO_IMAGE" | "TEXT_TO_VIDEO" | "TEXT_TO_AUDIO" | "TEXT_TO_3D";
  model: string;
  prompt: string;
  /** Set when completed: the output on the content host ({cdn_url}, `GET /cdn/{shard}/{file}`). */
  output_url: string | null;
  /** The price when completed; 0 otherwise (failed jobs are refunded). */
  credits_charged: number;
  /** A user-facing message when failed. */
  error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** When it was canceled (POST .../cancel, or its Cancel-After deadline). A canceled generation is `failed`, refunded. */
  canceled_at: string | null;
  /** While queued: how many of the account's generations are ahead of it (0: it starts next). While processing: its place in the model provider's queue, where the provider reports one (0: it runs next there). Null otherwise. */
  queue_position: number | null;
  /** While processing: 0 to 1 where the model reports progress (null where it does not); 1 once completed; null otherwise. */
  progress: number | null;
  /** For a completed generation: when its output is deleted (OUTPUT_RETENTION_HOURS after completion, a week by default). output_url stays in the record and then answers 410 gone. */
  output_expires_at: string | null;
  /** The `input` as applied at submit: checked against the model's `inputs`, its defaults filled in (`{}` for a model without inputs). */
  input: Record<string, unknown>;
  /** Your own keys and values, as given at submit (`{}` when none). */
  metadata: Record<string, string>;
  /** Every output of a completed generation, in order (`output_url` is the first); `[]` otherwise. */
  outputs: GenerationOutput[];
}

export interface GenerationOutput {
  /** The file on the content host ({cdn_url}); answers 410 gone once its retention ended. */
  url: string;
  content_type: string;
  /** Size in bytes (null for outputs stored before sizes were recorded). */
  bytes: number | null;
  /** Pixels, where known (images, videos). */
  width?: number;
  /** Pixels, where known (images, videos). */
  height?: number;
  /** Seconds, where known (videos, audio). */
  duration_s?: number;
}

export interface GenerationPage {
  data: Generation[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

export interface LedgerEntry {
  /** Increases with time within an account. */
  id: string;
  /** `grant`: credits added; `adjustment`: credits removed by the operator; `hold`: reserved at submit; `capture`: the held credits charged when the generation completed; `release`: the held credits returned when it failed (the refund). */
  kind: "grant" | "adjustment" | "hold" | "capture" | "release";
  /** Signed change to the available credits (a hold is negative, a release positive, a capture 0). */
  amount: number;
  /** Signed change to the held credits. */
  held_change: number;
  /** Available credits right after this entry. */
  balance_after: number;
  /** The generation of a hold, capture or release; null for grants and adjustments. */
  generation_id: string | null;
  /** The generation's model, when known. */
  model: string | null;
  created_at: string;
  /** Why (an operator grant's reason, a refund's cause). */
  note: string | null;
}

export interface LedgerPage {
  /** Newest first. */
  data: LedgerEntry[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: string | null;
}

export interface Model {
  id: string;
  name: string;
  type: "TEXT_TO_IMAGE" | "TEXT_TO_VIDEO" | "TEXT_TO_AUDIO" | "TEXT_TO_3D";
  /** Credits charged on success. */
  credits: number;
  /** Credits the account must have available to submit. */
  minimum_credits: number;
  /** True when POST /generate waits for the result (image models). */
  synchronous: boolean;
  /** Lowest plan that may use the model. */
  min_plan: "free" | "lite" | "pro" | "enterprise";
  /** Who serves it: `replicate`, `fal`, `openai`, ... `demo` marks the built-in demo engines, which draw shapes from the prompt and are not AI models. */
  provider: string;
  /** What the model makes and how, in the operator's words ('' when none). */
  description: string;
  /** Whether a submit by this caller can use it now: enabled by the operator, its engine can run here, and the caller's plan allows it. */
  available: boolean;
  /** Why it is not available (disabled, not installed on this server, plan); null when available. */
  unavailable_reason: string | null;
  /** The inputs a generation of this model may give (`input` of POST /generate): a JSON Schema object whose properties are strings, integers, numbers or booleans with `enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `default`, `title`, `description`, and `format: "uri"` for media (an upload or an https URL). `properties` is empty when the model takes only a prompt. Unknown inputs are refused (`additionalProperties: false`). */
  inputs: Record<string, unknown>;
  /** Numeric inputs the price is multiplied by: a generation costs `credits` × each value as applied (defaults included), rounded up to a whole credit. Empty: a fixed price. */
  price_multipliers: string[];
  /** How the price is computed, in words. */
  pricing: string;
}

export interface ModelList {
  data: Model[];
}

export interface PlanLimits {
  requests_per_minute: number;
  parallel_tasks: number;
}

export interface SendTestWebhook {
  /** Where to send the test event; the key's default webhook URL when absent. Checked like any webhook URL. */
  url?: string;
}

export interface Upload {
  /** Give it (or `url`) to a media input of `POST /generate`. */
  id: string;
  /** The file on the content host ({cdn_url}), readable without a key until it expires: what the provider is given. */
  url: string;
  /** After this the upload cannot be used (422), and it is deleted. */
  expires_at: string;
  /** Its media type, as its bytes show it. */
  content_type: string;
  bytes: number;
}

export interface WebhookAttempt {
  number: number;
  started_at: string;
  /** Null while the attempt is in flight. */
  duration_ms: number | null;
  outcome: "in_flight" | "succeeded" | "failed";
  /** The receiver's HTTP status, when it answered. */
  status_code: number | null;
  error_class: "http_status" | "timeout" | "connection" | "forbidden_destination" | "no_secret" | "interrupted" | null;
  error: string | null;
}

export interface WebhookDelivery {
  /** The X-Service-Delivery-Id header of every attempt. */
  id: string;
  event: "generation.completed" | "generation.failed";
  url: string;
  status: "pending" | "succeeded" | "failed";
  attempts_made: number;
  max_attempts: number;
  /** Null once finished. */
  next_attempt_at: string | null;
  created_at: string;
  finished_at: string | null;
  /** For a redelivery, the id of the delivery whose body it resends. */
  redelivery_of: string | null;
  /** A test event (POST /api/v1/webhooks/test): sent with `X-Service-Test: true`, belongs to no generation. */
  test: boolean;
  attempts: WebhookAttempt[];
}

export interface WebhookDeliveryList {
  data: WebhookDelivery[];
}

export interface WebhookEvent {
  /** Equal to the X-Service-Event header. */
  event: "generation.completed" | "generation.failed";
  /** The generation id, as POST /api/v1/generate returned it. The same on every retry. */
  id: string;
  /** `completed` for generation.completed, `failed` for generation.failed. */
  status: "completed" | "failed";
  type: "TEXT_TO_IMAGE" | "TEXT_TO_VIDEO" | "TEXT_TO_AUDIO" | "TEXT_TO_3D";
  model: string;
  /** Set only on success. */
  output_url: string | null;
  /** Credits debited; 0 on failure (refunded). */
  credits_charged: number;
  /** A user-facing message on failure; null on success. */
  error: string | null;
  created_at: string;
  completed_at: string;
  /** Every output, in order (`output_url` is the first); `[]` on failure. Added after the spec fields. */
  outputs: GenerationOutput[];
  /** The `input` as applied at submit. */
  input: Record<string, unknown>;
  /** Your metadata, as given at submit. */
  metadata: Record<string, string>;
}
