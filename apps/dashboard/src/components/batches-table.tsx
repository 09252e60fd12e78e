import type { Batch } from '../api/api';
import { formatDate } from '../lib/format';
import { Link } from '../lib/router';
import { NumCell } from './list-parts';
import { BatchProgress, BatchStatusBadge } from './batch-parts';

export const BATCH_COLUMNS = ['Batch', 'Created', 'Status', 'Progress', 'Credits charged'] as const;

/** One batch in the Batches table (stacked as a card on narrow screens: each cell names its column). */
export function BatchRow({ batch }: { batch: Batch }) {
  return (
    <tr data-batch={batch.id}>
      <td data-label="Batch">
        <Link to={`/batches/${encodeURIComponent(batch.id)}`} className="row-link">
          <span className="mono small break">{batch.id}</span>
        </Link>
      </td>
      <td data-label="Created">{formatDate(batch.created_at)}</td>
      <td data-label="Status">
        <BatchStatusBadge status={batch.status} />
      </td>
      <td data-label="Progress">
        <BatchProgress counts={batch.request_counts} compact />
      </td>
      <NumCell label="Credits charged">{batch.credits_charged}</NumCell>
    </tr>
  );
}
