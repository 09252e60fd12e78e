import type { BatchCounts, BatchStatus, BatchView } from '@gen/contracts';

/** A `batches` row as raw SQL returns it. */
export interface BatchRow {
  id: string;
  account_id: string;
  api_key_id: string;
  plan: string;
  parallel_limit: number;
  status: 'receiving' | BatchStatus;
  completion_window: string;
  completion_window_seconds: number;
  expires_at: Date | null;
  total_lines: number;
  webhook_url: string | null;
  metadata: Record<string, string>;
  catalogue_version: string | null;
  final_counts: BatchCounts | null;
  credits_charged: string | null;
  created_at: Date;
  sealed_at: Date | null;
  canceled_at: Date | null;
  finished_at: Date | null;
}

/** Counts of a batch's lines and jobs (batch-counts.sql), bigints as strings. */
export type CountsRow = { [K in keyof BatchCounts]: string } & { credits_charged: string };

export function countsFromRow(row: CountsRow): { counts: BatchCounts; creditsCharged: number } {
  return {
    counts: {
      total: Number(row.total),
      invalid: Number(row.invalid),
      waiting: Number(row.waiting),
      queued: Number(row.queued),
      processing: Number(row.processing),
      completed: Number(row.completed),
      failed: Number(row.failed),
      canceled: Number(row.canceled),
      expired: Number(row.expired),
    },
    creditsCharged: Number(row.credits_charged),
  };
}

/** The batch as the API shows it; a finished batch's counts are the ones stored when it ended. */
export function toBatchView(row: BatchRow, live: { counts: BatchCounts; creditsCharged: number } | null): BatchView {
  const counts = row.final_counts ?? live?.counts;
  if (!counts) throw new Error(`batch ${row.id}: no counts`);
  return {
    id: row.id,
    object: 'batch',
    status: row.status === 'receiving' ? 'in_progress' : row.status,
    completion_window: row.completion_window,
    created_at: row.created_at.toISOString(),
    expires_at: (row.expires_at ?? row.created_at).toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
    canceled_at: row.canceled_at?.toISOString() ?? null,
    request_counts: counts,
    credits_charged: row.final_counts ? Number(row.credits_charged ?? 0) : (live?.creditsCharged ?? 0),
    webhook_url: row.webhook_url,
    metadata: row.metadata,
  };
}

/** Whether a batch is still running (the feeder's concern). */
export function isRunning(status: BatchRow['status']): boolean {
  return status === 'in_progress' || status === 'canceling';
}
