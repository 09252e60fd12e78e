import { ArrayMaxSize, IsIn, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Max, Min } from 'class-validator';
import { GENERATION_TYPES, GenerationType, PLANS, PlanName } from '../shared/generation';
import type { GenerationRecord } from '../shared/generation';
import { Nested, Nullable } from '../validation';
import { GenerationRecordPayload } from './generation-record.payload';
import { Events } from './subjects';

/**
 * Batches (docs/design/batches.md): the gateway checks a JSONL file line by line and hands the batch
 * to generation in parts (`generation.batch.create`, then `generation.batch.lines` in chunks that fit
 * a NATS message, then `generation.batch.seal`); generation admits its lines as jobs when the
 * account's parallel slots are free and says when it ended (`batch.completed`, from its outbox).
 * Requests are checked on receipt (PAYLOAD_CLASSES); replies are interfaces with classes beside them
 * for the message contract.
 */

/** Most lines one batch may hold. */
export const MAX_BATCH_LINES = 50_000;
/** Most lines (valid and invalid together) in one `generation.batch.lines` message. */
export const MAX_BATCH_LINES_PER_MESSAGE = 500;

/** What a batch is doing, as the API shows it. `canceling`: canceled, with admitted jobs still running. */
export const BATCH_STATUSES = ['in_progress', 'canceling', 'completed', 'canceled', 'expired'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

/**
 * Where one line ended, in the results and errors files: `completed` (results file); `failed` (its job
 * failed, or its credits could not be held: nothing charged), `canceled` (the batch was canceled before
 * the line ran, or its job was canceled), `expired` (the completion window ended before it was admitted),
 * `invalid` (refused by the check at creation: nothing charged): the errors file.
 */
export const BATCH_LINE_OUTCOMES = ['completed', 'failed', 'canceled', 'expired', 'invalid'] as const;
export type BatchLineOutcome = (typeof BATCH_LINE_OUTCOMES)[number];

/** `request_counts` of a batch: every line is in exactly one of these; `total` is their sum. */
export interface BatchCounts {
  total: number;
  /** Refused by the check at creation (`invalid_lines: "skip"`). */
  invalid: number;
  /** Not admitted yet: no credits held. */
  waiting: number;
  /** Admitted (credits held), its job queued. */
  queued: number;
  processing: number;
  completed: number;
  failed: number;
  canceled: number;
  expired: number;
}

/** A batch as `GET /api/v1/batches/{id}` shows it (snake_case: this is the HTTP body as is). */
export interface BatchView {
  id: string;
  object: 'batch';
  status: BatchStatus;
  /** As given at creation (`24h`, `90m`, `3600s`). */
  completion_window: string;
  created_at: string;
  /** The end of the completion window: lines not admitted by then are `expired`. */
  expires_at: string;
  /** When the batch reached `completed`, `canceled` or `expired`; null before. */
  finished_at: string | null;
  canceled_at: string | null;
  request_counts: BatchCounts;
  /** Credits charged so far for the batch's completed lines. */
  credits_charged: number;
  /** Where `batch.completed` goes (the request's `webhook_url`, else the creating key's default); null: nowhere. */
  webhook_url: string | null;
  metadata: Record<string, string>;
}

/** One line of the results file (`completed`) or the errors file (every other outcome). */
export interface BatchLineResult {
  /** The line's number in the file, from 1. */
  line: number;
  /** Null only for an invalid line whose `custom_id` could not be read. */
  custom_id: string | null;
  outcome: BatchLineOutcome;
  /** The line's generation, once it was admitted; null otherwise. */
  generation: GenerationRecord | null;
  /** Why it did not complete (`validation_error`, `insufficient_credits`, `generation_failed`, `canceled`, `expired`, ...); null when completed. */
  error: { code: string; message: string } | null;
}

export interface ListBatchesReply {
  data: BatchView[];
  next_cursor: string | null;
}

export interface BatchLinesReply {
  data: BatchLineResult[];
  /** Pass as `afterLine` for the next page; null at the end. */
  next_after_line: number | null;
}

export interface AddBatchLinesReply {
  /** Lines of the batch stored so far (valid and invalid), including this message's. */
  received: number;
}

/** A line the gateway checked and priced: what generation admits as a job, as a submit would carry it. */
export class BatchLinePayload {
  @IsInt() @Min(1) line!: number;
  @IsString() @IsNotEmpty() customId!: string;
  @IsString() model!: string;
  @IsString() prompt!: string;
  @IsIn(GENERATION_TYPES) type!: GenerationType;
  /** The input as the gateway applied it (validated, defaults filled, uploads named). */
  @IsObject() input!: Record<string, unknown>;
  @IsObject() metadata!: Record<string, string>;
  /** Credits held when the line is admitted: the model's batch price (or its price) for this input. */
  @IsNumber() credits!: number;
  @IsNumber() minimumCredits!: number;
  /** The line's own `webhook_url` for its generation's events; null: none (a batch's lines send no per-generation webhook by default). */
  @Nullable() @IsString() webhookUrl!: string | null;
}

/** A line refused by the check at creation (kept for the errors file, never charged). */
export class BatchLineProblemPayload {
  @IsInt() @Min(1) line!: number;
  @Nullable() @IsString() customId!: string | null;
  @IsString() code!: string;
  @IsString() message!: string;
}

/** `generation.batch.create`: the batch, without its lines (it stays invisible until sealed). */
export class CreateBatchRequest {
  @IsString() batchId!: string;
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  @IsIn(PLANS) plan!: PlanName;
  /** The account's parallel-task limit (from its plan): the slots its lines may use when they are free. */
  @IsInt() @Min(1) parallelLimit!: number;
  /** As given (`24h`); `completionWindowSeconds` is what it means. */
  @IsString() completionWindow!: string;
  @IsInt() @Min(60) completionWindowSeconds!: number;
  @Nullable() @IsString() webhookUrl!: string | null;
  @IsObject() metadata!: Record<string, string>;
  /** Every line of the file, valid and invalid. */
  @IsInt() @Min(1) @Max(MAX_BATCH_LINES) totalLines!: number;
  /** The catalogue version the lines were checked and priced against. */
  @IsOptional() @IsString() catalogueVersion?: string;
}

/** `generation.batch.lines`: a chunk of a created batch's lines; sent again, a line already stored is kept as it was. */
export class AddBatchLinesRequest {
  @IsString() batchId!: string;
  @IsString() accountId!: string;
  @ArrayMaxSize(MAX_BATCH_LINES_PER_MESSAGE) @Nested(() => BatchLinePayload, { each: true }) lines!: BatchLinePayload[];
  @ArrayMaxSize(MAX_BATCH_LINES_PER_MESSAGE) @Nested(() => BatchLineProblemPayload, { each: true }) invalid!: BatchLineProblemPayload[];
}

/** `generation.batch.seal`: every line is stored; the batch starts (refused if lines are missing). */
export class SealBatchRequest {
  @IsString() batchId!: string;
  @IsString() accountId!: string;
}

export class GetBatchRequest {
  @IsString() accountId!: string;
  @IsString() batchId!: string;
}

export class ListBatchesRequest {
  @IsString() accountId!: string;
  @IsInt() @Min(1) @Max(100) limit!: number;
  @IsOptional() @IsString() cursor?: string;
}

/** `POST /api/v1/batches/{id}/cancel`: lines not admitted are canceled, admitted jobs still queued are canceled (refunded). */
export class CancelBatchRequest {
  @IsString() accountId!: string;
  @IsString() batchId!: string;
}

/** A page of the results file (`completed` lines) or the errors file (the rest), in line order. */
export class ListBatchLinesRequest {
  @IsString() accountId!: string;
  @IsString() batchId!: string;
  @IsIn(['results', 'errors']) file!: 'results' | 'errors';
  @IsInt() @Min(0) afterLine!: number;
  @IsInt() @Min(1) @Max(1000) limit!: number;
}

export class BatchCountsPayload implements BatchCounts {
  @IsInt() total!: number;
  @IsInt() invalid!: number;
  @IsInt() waiting!: number;
  @IsInt() queued!: number;
  @IsInt() processing!: number;
  @IsInt() completed!: number;
  @IsInt() failed!: number;
  @IsInt() canceled!: number;
  @IsInt() expired!: number;
}

export class BatchViewPayload implements BatchView {
  @IsString() id!: string;
  @IsIn(['batch']) object!: 'batch';
  @IsIn(BATCH_STATUSES) status!: BatchStatus;
  @IsString() completion_window!: string;
  @IsString() created_at!: string;
  @IsString() expires_at!: string;
  @Nullable() @IsString() finished_at!: string | null;
  @Nullable() @IsString() canceled_at!: string | null;
  @Nested(() => BatchCountsPayload) request_counts!: BatchCountsPayload;
  @IsNumber() credits_charged!: number;
  @Nullable() @IsString() webhook_url!: string | null;
  @IsObject() metadata!: Record<string, string>;
}

export class BatchLineErrorPayload {
  @IsString() code!: string;
  @IsString() message!: string;
}

export class BatchLineResultPayload implements BatchLineResult {
  @IsInt() line!: number;
  @Nullable() @IsString() custom_id!: string | null;
  @IsIn(BATCH_LINE_OUTCOMES) outcome!: BatchLineOutcome;
  @Nullable() @Nested(() => GenerationRecordPayload) generation!: GenerationRecordPayload | null;
  @Nullable() @Nested(() => BatchLineErrorPayload) error!: BatchLineErrorPayload | null;
}

export class ListBatchesReplyPayload implements ListBatchesReply {
  @Nested(() => BatchViewPayload, { each: true }) data!: BatchViewPayload[];
  @Nullable() @IsString() next_cursor!: string | null;
}

export class BatchLinesReplyPayload implements BatchLinesReply {
  @Nested(() => BatchLineResultPayload, { each: true }) data!: BatchLineResultPayload[];
  @Nullable() @IsInt() next_after_line!: number | null;
}

export class AddBatchLinesReplyPayload implements AddBatchLinesReply {
  @IsInt() received!: number;
}

/**
 * `batch.completed` (generation's outbox, written in the transaction that ended the batch): the batch
 * reached `completed`, `canceled` or `expired`. The webhooks service signs it with the creating key's
 * secret and delivers it to `webhookUrl`, as it does a generation's event.
 */
export class BatchFinishedEvent {
  @IsString() @IsNotEmpty() eventId!: string;
  @IsIn([Events.batchCompleted]) event!: 'batch.completed';
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  /** The batch's destination as the gateway resolved it at creation (the request's `webhook_url`, else the creating key's default); null: no webhook. */
  @Nullable() @IsString() webhookUrl!: string | null;
  @Nested(() => BatchViewPayload) batch!: BatchViewPayload;
}
