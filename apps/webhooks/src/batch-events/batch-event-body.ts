import type { BatchFinishedEvent, BatchView } from '@gen/contracts';

/**
 * The body of a `batch.completed` webhook (docs/guide/webhooks.md, "Batch events"), in this field
 * order, as an account event's: `id` is the event's id, the same at every attempt, so a receiver drops
 * duplicates by it; `batch` is the batch as `GET /api/v1/batches/{id}` shows it.
 */
export interface BatchCompletedBody {
  event: 'batch.completed';
  id: string;
  account_id: string;
  created_at: string;
  batch: BatchView;
}

/** The batch's fields in the order of the API's body, whatever order the event carried them in. */
const BATCH_FIELDS = [
  'id',
  'object',
  'status',
  'completion_window',
  'created_at',
  'expires_at',
  'finished_at',
  'canceled_at',
  'request_counts',
  'credits_charged',
  'webhook_url',
  'metadata',
] as const satisfies readonly (keyof BatchView)[];

const COUNT_FIELDS = ['total', 'invalid', 'waiting', 'queued', 'processing', 'completed', 'failed', 'canceled', 'expired'] as const;

function orderedBatch(batch: BatchView): BatchView {
  const ordered: Record<string, unknown> = {};
  for (const field of BATCH_FIELDS) ordered[field] = batch[field];
  const counts: Record<string, number> = {};
  for (const field of COUNT_FIELDS) counts[field] = batch.request_counts[field];
  ordered.request_counts = counts;
  return ordered as unknown as BatchView;
}

/**
 * `created_at` is when the batch ended (its `finished_at`, set in the transaction that wrote the
 * event); `now` only stands in for an event that carries none.
 */
export function batchCompletedBody(event: BatchFinishedEvent, now: Date = new Date()): BatchCompletedBody {
  return {
    event: 'batch.completed',
    id: event.eventId,
    account_id: event.accountId,
    created_at: event.batch.finished_at ?? now.toISOString(),
    batch: orderedBatch(event.batch),
  };
}

/** The bytes stored with the delivery and sent (and signed) at every attempt. */
export function serialiseBatchCompletedBody(body: BatchCompletedBody): Buffer {
  return Buffer.from(JSON.stringify(body), 'utf8');
}
