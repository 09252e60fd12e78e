import { Events, EventName, GenerationFinishedEvent, GenerationOutput, GenerationRecord } from '@gen/contracts';

/**
 * The JSON body of a webhook request: the spec's fields, in this order (spec: Events, Body), then
 * the fields added since (never renamed or removed within v1, docs/guide/compatibility.md): `outputs` (every
 * output; `output_url` is the first), `input` as applied and the customer's `metadata`.
 * Not the generation record as the API shows it: no `prompt` (customer content that a receiver
 * logging webhooks should not get unasked), no `started_at`. Which record fields it carries is
 * declared with the record (`webhook` in GENERATION_RECORD_FIELDS, @gen/contracts).
 */
export interface WebhookBody {
  event: EventName;
  id: string;
  status: 'completed' | 'failed';
  type: GenerationRecord['type'];
  model: string;
  output_url: string | null;
  credits_charged: number;
  error: string | null;
  created_at: string;
  completed_at: string;
  outputs: GenerationOutput[];
  input: Record<string, unknown>;
  metadata: Record<string, string>;
}

/** The field names, in wire order. */
export const WEBHOOK_BODY_FIELDS = [
  'event',
  'id',
  'status',
  'type',
  'model',
  'output_url',
  'credits_charged',
  'error',
  'created_at',
  'completed_at',
  'outputs',
  'input',
  'metadata',
] as const satisfies readonly (keyof WebhookBody)[];

/** Shown when a failed record carries no message (it always should): the spec wants a non-null error. */
const FALLBACK_ERROR = 'The generation failed. Your credits were refunded.';

/**
 * The body of a finished generation's event, with the spec's rules enforced whatever the record
 * says: `status` follows the event, `output_url` only on success, 0 credits and a non-null error on
 * failure, `error` null on success.
 */
export function webhookBody(event: Pick<GenerationFinishedEvent, 'event' | 'record'>, now: Date = new Date()): WebhookBody {
  const { record } = event;
  const completed = event.event === Events.generationCompleted;
  return {
    event: event.event,
    id: record.id,
    status: completed ? 'completed' : 'failed',
    type: record.type,
    model: record.model,
    output_url: completed ? record.output_url : null,
    credits_charged: completed ? record.credits_charged : 0,
    error: completed ? null : record.error && record.error.length > 0 ? record.error : FALLBACK_ERROR,
    created_at: record.created_at,
    completed_at: record.completed_at ?? now.toISOString(),
    // Events written before these fields existed carry none: the body still has them, empty.
    outputs: completed ? (record.outputs ?? (record.output_url ? [{ url: record.output_url, content_type: 'application/octet-stream', bytes: null }] : [])) : [],
    input: record.input ?? {},
    metadata: record.metadata ?? {},
  };
}

/**
 * Serialises the body once, to the bytes stored with the delivery and sent (and signed) at every
 * attempt. Keys are written explicitly so that the order never depends on how the record was built.
 */
export function serialiseWebhookBody(body: WebhookBody): Buffer {
  const ordered: Record<string, unknown> = {};
  for (const field of WEBHOOK_BODY_FIELDS) ordered[field] = body[field];
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}
