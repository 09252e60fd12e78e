import type { BatchCounts, BatchStatus } from '../api/api';
import { formatNumber } from '../lib/format';

/** What a batch's status means, in words. */
export const BATCH_STATUS_LABELS: Record<BatchStatus, string> = {
  in_progress: 'In progress',
  canceling: 'Canceling',
  completed: 'Completed',
  canceled: 'Canceled',
  expired: 'Expired',
};

/** The badge colours generations use: under way, done, stopped. */
const BADGE_TONE: Record<BatchStatus, string> = {
  in_progress: 'processing',
  canceling: 'pending',
  completed: 'completed',
  canceled: 'failed',
  expired: 'failed',
};

export function BatchStatusBadge({ status }: { status: BatchStatus }) {
  return <span className={`badge badge-${BADGE_TONE[status]}`}>{BATCH_STATUS_LABELS[status]}</span>;
}

/** Where a finished line ended, in the order the bar shows them. */
const OUTCOMES = ['completed', 'failed', 'canceled', 'expired', 'invalid'] as const satisfies readonly (keyof BatchCounts)[];

/** Lines with an outcome (the rest wait, are queued or run). */
export function finishedLines(counts: BatchCounts): number {
  return OUTCOMES.reduce((sum, outcome) => sum + counts[outcome], 0);
}

/**
 * Finished lines out of the total as a bar, a segment per outcome, and the counts in words: completed
 * always, the other outcomes when there are any. `compact`: the table's cell (the words on one line).
 */
export function BatchProgress({ counts, compact = false }: { counts: BatchCounts; compact?: boolean }) {
  const finished = finishedLines(counts);
  const share = (n: number) => (counts.total > 0 ? (n / counts.total) * 100 : 0);
  const outcomes = OUTCOMES.filter((o) => o === 'completed' || counts[o] > 0);
  const summary = `${formatNumber(finished)} of ${formatNumber(counts.total)} lines finished`;
  return (
    <div className={compact ? 'batch-progress compact' : 'batch-progress'}>
      <div
        className="progress-track"
        role="progressbar"
        aria-label="Lines finished"
        aria-valuemin={0}
        aria-valuemax={counts.total}
        aria-valuenow={finished}
        aria-valuetext={summary}
      >
        {OUTCOMES.map((o) => counts[o] > 0 && <span key={o} className={`progress-part progress-${o}`} style={{ width: `${share(counts[o])}%` }} />)}
      </div>
      <span className="small">
        {formatNumber(finished)} / {formatNumber(counts.total)}
        <span className="muted">
          {' '}
          · {outcomes.map((o) => `${formatNumber(counts[o])} ${o}`).join(' · ')}
        </span>
      </span>
    </div>
  );
}
