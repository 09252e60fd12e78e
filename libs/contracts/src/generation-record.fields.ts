import type { GenerationOutput, GenerationRecord } from './generation';

/**
 * One field of the generation record as every copy of it must say: its JSON type, whether it may be
 * null, its string format, and where else it appears.
 */
export interface RecordField {
  type: 'string' | 'integer' | 'number' | 'enum' | 'object' | 'array';
  /** For `enum`: the allowed values' list in this lib (`JOB_STATUSES`), by name. */
  values?: 'JOB_STATUSES' | 'GENERATION_TYPES';
  /** For `object`: what the values are (`unknown`: any JSON). For `array`: the item type. */
  items?: 'string' | 'unknown' | 'GenerationOutput';
  nullable: boolean;
  format?: 'uuid' | 'uri' | 'date-time';
  /**
   * Added to the record after v1: a message from an older producer may lack it, so the payload class
   * marks it `@IsOptional()` like the nullable fields, and the reader fills its default
   * (CONTRIBUTING.md, "Messages"). Every field added from now on is one.
   */
  addedAfterV1: boolean;
  /** In the webhook body (a deliberate subset: no `prompt`, customer content; no timings but `completed_at`). */
  webhook: boolean;
}

/**
 * The generation record, declared once: its fields in wire order. The hand-written copies are held to
 * it by test/ops/generation-record.spec.ts, which names the field that differs: the `GenerationRecord`
 * interface (./generation.ts), its payload class (`GenerationRecordPayload`), the gateway's OpenAPI
 * DTO (`GenerationDto`), the webhook body's field list (`WEBHOOK_BODY_FIELDS`) and the Python SDK's
 * `Generation` and `WebhookEvent` types (sdk/python/generation_service/_types.py).
 * Adding a field: CONTRIBUTING.md, "Add a field to the generation record".
 */
export const GENERATION_RECORD_FIELDS = {
  id: { type: 'string', format: 'uuid', nullable: false, addedAfterV1: false, webhook: true },
  status: { type: 'enum', values: 'JOB_STATUSES', nullable: false, addedAfterV1: false, webhook: true },
  type: { type: 'enum', values: 'GENERATION_TYPES', nullable: false, addedAfterV1: false, webhook: true },
  model: { type: 'string', nullable: false, addedAfterV1: false, webhook: true },
  prompt: { type: 'string', nullable: false, addedAfterV1: false, webhook: false },
  output_url: { type: 'string', format: 'uri', nullable: true, addedAfterV1: false, webhook: true },
  credits_charged: { type: 'integer', nullable: false, addedAfterV1: false, webhook: true },
  error: { type: 'string', nullable: true, addedAfterV1: false, webhook: true },
  created_at: { type: 'string', format: 'date-time', nullable: false, addedAfterV1: false, webhook: true },
  started_at: { type: 'string', format: 'date-time', nullable: true, addedAfterV1: false, webhook: false },
  completed_at: { type: 'string', format: 'date-time', nullable: true, addedAfterV1: false, webhook: true },
  canceled_at: { type: 'string', format: 'date-time', nullable: true, addedAfterV1: false, webhook: false },
  queue_position: { type: 'integer', nullable: true, addedAfterV1: false, webhook: false },
  progress: { type: 'number', nullable: true, addedAfterV1: false, webhook: false },
  output_expires_at: { type: 'string', format: 'date-time', nullable: true, addedAfterV1: false, webhook: false },
  input: { type: 'object', items: 'unknown', nullable: false, addedAfterV1: true, webhook: true },
  metadata: { type: 'object', items: 'string', nullable: false, addedAfterV1: true, webhook: true },
  outputs: { type: 'array', items: 'GenerationOutput', nullable: false, addedAfterV1: true, webhook: true },
} as const satisfies { [Name in keyof GenerationRecord]-?: RecordField };

export type RecordFieldName = keyof typeof GENERATION_RECORD_FIELDS;

/** One field of an output (`outputs[]` of the record): as a record field, and whether it may be absent. */
export interface OutputField {
  type: 'string' | 'integer' | 'number';
  nullable: boolean;
  format?: 'uri';
  /** Absent where unknown (`width` of audio); every copy marks it optional. */
  optional: boolean;
}

/** An output of the record, declared once as the record is (the same copies, the same spec). */
export const GENERATION_OUTPUT_FIELDS = {
  url: { type: 'string', format: 'uri', nullable: false, optional: false },
  content_type: { type: 'string', nullable: false, optional: false },
  bytes: { type: 'integer', nullable: true, optional: false },
  width: { type: 'integer', nullable: false, optional: true },
  height: { type: 'integer', nullable: false, optional: true },
  duration_s: { type: 'number', nullable: false, optional: true },
} as const satisfies { [Name in keyof GenerationOutput]-?: OutputField };
