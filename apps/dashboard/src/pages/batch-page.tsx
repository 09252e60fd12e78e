import { useEffect } from 'react';
import { Batch, batchFileUrl, dashboardApi } from '../api/api';
import { BatchProgress, BatchStatusBadge } from '../components/batch-parts';
import { CancelBatch } from '../components/cancel-batch';
import { NumCell } from '../components/list-parts';
import { CopyButton, EmptyState, Loading, LoadError, PageHeading } from '../components/ui';
import { formatDate, formatNumber } from '../lib/format';
import { useCan } from '../lib/role';
import { Link } from '../lib/router';
import { useAsync } from '../lib/use-async';

const POLL_MS = 2000;

/** Every count of a batch's lines, in the order a line moves through them, and what each means. */
const COUNT_ROWS: Array<[keyof Batch['request_counts'], string]> = [
  ['waiting', 'Waiting: not started, no credits held'],
  ['queued', 'Queued: credits held, waiting for a slot'],
  ['processing', 'Processing'],
  ['completed', 'Completed'],
  ['failed', 'Failed (not charged)'],
  ['canceled', 'Canceled (not charged)'],
  ['expired', 'Expired: the window ended before they started (not charged)'],
  ['invalid', 'Invalid: refused when the batch was created (not charged)'],
];

function BatchCounts({ batch }: { batch: Batch }) {
  const counts = batch.request_counts;
  return (
    <table className="table batch-counts" aria-label="Lines by state">
      <tbody>
        {COUNT_ROWS.map(([name, label]) => (
          <tr key={name} data-count={name}>
            <th scope="row">{label}</th>
            <NumCell label={label}>{formatNumber(counts[name])}</NumCell>
          </tr>
        ))}
        <tr>
          <th scope="row">Total</th>
          <NumCell label="Total">{formatNumber(counts.total)}</NumCell>
        </tr>
      </tbody>
    </table>
  );
}

function BatchFields({ batch: b }: { batch: Batch }) {
  const metadata = Object.entries(b.metadata);
  return (
    <dl className="fields">
      <dt>ID</dt>
      <dd>
        <span className="mono small break">{b.id}</span> <CopyButton value={b.id} label="Copy ID" />
      </dd>
      <dt>Created</dt>
      <dd>{formatDate(b.created_at)}</dd>
      <dt>Completion window</dt>
      <dd>
        {b.completion_window} <span className="muted small">expires {formatDate(b.expires_at)}</span>
      </dd>
      <dt>Finished</dt>
      <dd>{formatDate(b.finished_at)}</dd>
      {b.canceled_at && (
        <>
          <dt>Canceled</dt>
          <dd>{formatDate(b.canceled_at)}</dd>
        </>
      )}
      <dt>Credits charged</dt>
      <dd>{formatNumber(b.credits_charged)}</dd>
      <dt>Webhook</dt>
      <dd>{b.webhook_url ? <span className="mono small break">{b.webhook_url}</span> : <span className="muted">none</span>}</dd>
      <dt>Metadata</dt>
      <dd>{metadata.length === 0 ? <span className="muted">none</span> : <span className="mono small break">{metadata.map(([k, v]) => `${k}: ${v}`).join(', ')}</span>}</dd>
    </dl>
  );
}

/** One batch: its progress and counts, its times, Cancel while it runs, and its results and errors files. */
export function BatchPage({ id }: { id: string }) {
  const [state, reload] = useAsync(() => dashboardApi.batch(id), [id]);
  const can = useCan();
  // Refresh by itself while lines are still to run.
  const running = state.status === 'ready' && (state.data.status === 'in_progress' || state.data.status === 'canceling');
  useEffect(() => {
    if (!running) return;
    const timer = window.setTimeout(reload, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [running, state, reload]);

  if (state.status === 'loading') {
    return (
      <main id="main">
        <PageHeading title="Batch">Batch</PageHeading>
        <Loading />
      </main>
    );
  }
  if (state.status === 'error') {
    const missing = state.error.status === 404;
    return (
      <main id="main">
        <PageHeading title={missing ? 'Batch not found' : 'Batch'}>{missing ? 'Batch not found' : 'Batch'}</PageHeading>
        {missing ? (
          <EmptyState title="There is no batch with this id in your account.">
            <p>
              <Link to="/batches">Back to batches</Link>
            </p>
          </EmptyState>
        ) : (
          <LoadError message={state.error.detail} onRetry={reload} />
        )}
      </main>
    );
  }
  const b = state.data;
  return (
    <main id="main">
      <p className="breadcrumb">
        <Link to="/batches">← Batches</Link>
      </p>
      <div className="title-row">
        <PageHeading title="Batch">Batch</PageHeading>
        <BatchStatusBadge status={b.status} />
      </div>
      {b.status === 'in_progress' && can('developer') && <CancelBatch id={b.id} onCanceled={reload} />}
      <section aria-labelledby="progress-heading" className="section">
        <h2 id="progress-heading">Progress</h2>
        <BatchProgress counts={b.request_counts} />
        <BatchCounts batch={b} />
      </section>
      <div className="detail-grid">
        <section aria-labelledby="fields-heading">
          <h2 id="fields-heading">Details</h2>
          <BatchFields batch={b} />
        </section>
        <section aria-labelledby="files-heading">
          <h2 id="files-heading">Files</h2>
          <p className="muted small">JSON Lines, one line of the batch per line, in line order; partial while the batch runs.</p>
          <ul className="batch-files">
            <li>
              <a href={batchFileUrl(b.id, 'results')} download={`${b.id}-results.jsonl`}>
                Download results
              </a>{' '}
              <span className="muted small">completed lines, with their generations</span>
            </li>
            <li>
              <a href={batchFileUrl(b.id, 'errors')} download={`${b.id}-errors.jsonl`}>
                Download errors
              </a>{' '}
              <span className="muted small">failed, canceled, expired and invalid lines, with why</span>
            </li>
          </ul>
        </section>
      </div>
    </main>
  );
}
