import { useEffect, useState } from 'react';
import { ApiError, dashboardApi, GenerationDetail } from '../api';
import { DeliveryItem } from '../components/delivery-item';
import { Preview } from '../components/preview';
import { ConfirmDialog, CopyButton, EmptyState, Loading, LoadError, Notice, PageHeading, StatusBadge } from '../components/ui';
import { between, formatDate, formatDuration, shortId, TYPE_LABELS } from '../format';
import { useCan } from '../role';
import { Link } from '../router';
import { useAsync } from '../use-async';

const POLL_MS = 2000;

/** An input value as typed JSON would show it (strings as they are). */
function inputText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Keys and values (the input as applied, or the customer's metadata), or a dash when there are none. */
function KeyValues({ values, label, testId }: { values: Record<string, unknown> | null | undefined; label: string; testId: string }) {
  const entries = Object.entries(values ?? {});
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <table className="kv" aria-label={label} data-testid={testId}>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row" className="mono small">
              {key}
            </th>
            <td className="mono small break">{inputText(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** "1.2 MB", "340 KB". */
function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'size not recorded';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function Deliveries({ detail, onRedeliver }: { detail: GenerationDetail; onRedeliver: () => Promise<string> }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const deliveries = detail.deliveries;
  const can = useCan();
  if (!deliveries.available) {
    return <Notice title="Delivery log unavailable">{deliveries.message && <p>{deliveries.message}</p>}</Notice>;
  }
  const redeliver = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const id = await onRedeliver();
      setMessage({ tone: 'ok', text: `Sent again as a new delivery (${id}): the last one in the list above.` });
    } catch (error) {
      setMessage({ tone: 'error', text: error instanceof ApiError ? error.detail : 'The event could not be sent again.' });
    } finally {
      setBusy(false);
    }
  };
  const finished = detail.generation.status === 'completed' || detail.generation.status === 'failed';
  const pending = deliveries.data.some((d) => d.status === 'pending');
  return (
    <>
      {deliveries.data.length === 0 ? (
        <EmptyState title={finished ? 'No webhook was sent for this generation' : 'No webhook yet'}>
          <p>
            {finished ? 'Its API key had no default webhook URL and the request named none. ' : 'One is sent when the generation finishes, '}
            {finished ? 'Set one' : 'if its key has a default webhook URL'} on the key (<Link to="/settings/keys">API keys</Link>) or send{' '}
            <code>webhook_url</code> with the request.
          </p>
        </EmptyState>
      ) : (
        <ol className="deliveries">
          {deliveries.data.map((delivery) => (
            <DeliveryItem key={delivery.id} delivery={delivery} />
          ))}
        </ol>
      )}
      {finished && deliveries.data.length > 0 && can('developer') && (
        <div className="actions">
          <button type="button" className="button button-secondary" onClick={() => void redeliver()} disabled={busy || pending}>
            {busy ? 'Sending…' : 'Redeliver'}
          </button>
          <span className="hint">
            {pending ? 'Wait until the delivery in progress has finished.' : 'Sends the same event again, signed with the key’s current secret.'}
          </span>
        </div>
      )}
      {message && (
        <p role={message.tone === 'error' ? 'alert' : 'status'} className={message.tone === 'error' ? 'form-error' : 'hint'}>
          {message.text}
        </p>
      )}
    </>
  );
}

/** Cancel for a queued or running generation: asks first, then shows the refunded record. */
function CancelGeneration({ id, onCanceled }: { id: string; onCanceled: () => void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await dashboardApi.cancelGeneration(id);
      setOpen(false);
      onCanceled();
    } catch (e) {
      setOpen(false);
      setError(e instanceof ApiError ? e.detail : 'The generation could not be canceled.');
      onCanceled();
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div className="actions section-actions">
        <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
          Cancel generation
        </button>
        <span className="hint">Stops it and refunds its credits. Its webhook reports it as failed.</span>
      </div>
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <ConfirmDialog
        open={open}
        title="Cancel this generation?"
        confirmLabel="Cancel generation"
        dismissLabel="Keep it running"
        danger
        busy={busy}
        onConfirm={() => void cancel()}
        onCancel={() => setOpen(false)}
      >
        <p>It stops now, wherever it is, and its credits are refunded. If it finishes first, it stays completed and is charged.</p>
      </ConfirmDialog>
    </>
  );
}

export function GenerationPage({ id }: { id: string }) {
  const [state, reload] = useAsync(() => dashboardApi.generation(id), [id]);
  const can = useCan();
  // Refresh by itself while the job or one of its deliveries is still under way.
  const pending =
    state.status === 'ready' &&
    (state.data.generation.status === 'queued' ||
      state.data.generation.status === 'processing' ||
      state.data.deliveries.data.some((d) => d.status === 'pending'));
  useEffect(() => {
    if (!pending) return;
    const timer = window.setTimeout(reload, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [pending, state, reload]);

  if (state.status === 'loading') {
    return (
      <main id="main">
        <PageHeading title="Generation">Generation</PageHeading>
        <Loading />
      </main>
    );
  }
  if (state.status === 'error') {
    return (
      <main id="main">
        <PageHeading title="Generation not found">{state.error.status === 404 ? 'Generation not found' : 'Generation'}</PageHeading>
        {state.error.status === 404 ? (
          <EmptyState title="There is no generation with this id in your account.">
            <p>
              <Link to="/generations">Back to generations</Link>
            </p>
          </EmptyState>
        ) : (
          <LoadError message={state.error.detail} onRetry={reload} />
        )}
      </main>
    );
  }
  const g = state.data.generation;
  return (
    <main id="main">
      <p className="breadcrumb">
        <Link to="/generations">← Generations</Link>
      </p>
      <div className="title-row">
        <PageHeading title={`Generation ${shortId(g.id)}`}>
          {TYPE_LABELS[g.type]} generation <span className="mono muted">{shortId(g.id)}</span>
        </PageHeading>
        <StatusBadge status={g.status} />
      </div>
      {(g.status === 'queued' || g.status === 'processing') && can('developer') && <CancelGeneration id={g.id} onCanceled={reload} />}
      <div className="detail-grid">
        <section aria-labelledby="output-heading">
          <h2 id="output-heading">Output</h2>
          <Preview generation={g} />
        </section>
        <section aria-labelledby="fields-heading">
          <h2 id="fields-heading">Details</h2>
          <dl className="fields">
            <dt>Prompt</dt>
            <dd className="prompt-full">{g.prompt}</dd>
            <dt>Input</dt>
            <dd>
              <KeyValues values={g.input} label="Input as applied" testId="generation-input" />
              {g.input && Object.keys(g.input).length > 0 && <span className="muted small">as applied: the request's values with the model's defaults</span>}
            </dd>
            <dt>Metadata</dt>
            <dd>
              <KeyValues values={g.metadata} label="Metadata" testId="generation-metadata" />
            </dd>
            <dt>ID</dt>
            <dd>
              <span className="mono small break">{g.id}</span> <CopyButton value={g.id} label="Copy ID" />
            </dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={g.status} />
              {g.status === 'queued' && g.queue_position !== null && (
                <span className="muted small"> · {g.queue_position === 0 ? 'next to start' : `${g.queue_position} ahead of it`}</span>
              )}
              {g.status === 'processing' && g.progress !== null && <span className="muted small"> · {Math.round(g.progress * 100)} %</span>}
              {g.canceled_at && <span className="muted small"> · canceled {formatDate(g.canceled_at)}</span>}
            </dd>
            <dt>Type</dt>
            <dd className="mono small">{g.type}</dd>
            <dt>Model</dt>
            <dd className="mono small">{g.model}</dd>
            <dt>Credits charged</dt>
            <dd>{g.credits_charged}</dd>
            <dt>Created</dt>
            <dd>{formatDate(g.created_at)}</dd>
            <dt>Started</dt>
            <dd>
              {formatDate(g.started_at)}
              {g.started_at && <span className="muted small"> · waited {formatDuration(between(g.created_at, g.started_at))}</span>}
            </dd>
            <dt>{g.status === 'failed' ? 'Finished' : 'Completed'}</dt>
            <dd>
              {formatDate(g.completed_at)}
              {g.completed_at && (
                <span className="muted small">
                  {' '}
                  · ran {formatDuration(between(g.started_at ?? g.created_at, g.completed_at))}, {formatDuration(between(g.created_at, g.completed_at))}{' '}
                  in all
                </span>
              )}
            </dd>
            <dt>Output URL</dt>
            <dd>{g.output_url ? <span className="mono small break">{g.output_url}</span> : '—'}</dd>
            {g.outputs && g.outputs.length > 0 && (
              <>
                <dt>Outputs</dt>
                <dd>
                  <ol className="outputs-list" data-testid="generation-outputs">
                    {g.outputs.map((o) => (
                      <li key={o.url}>
                        <a href={o.url} className="mono small break" target="_blank" rel="noreferrer">
                          {o.url}
                        </a>
                        <span className="muted small">
                          {' '}
                          · {o.content_type}
                          {o.bytes === null ? '' : ` · ${formatBytes(o.bytes)}`}
                          {o.width && o.height ? ` · ${o.width}x${o.height}` : ''}
                          {o.duration_s ? ` · ${o.duration_s} s` : ''}
                        </span>
                      </li>
                    ))}
                  </ol>
                </dd>
              </>
            )}
            {g.output_expires_at && (
              <>
                <dt>Output kept until</dt>
                <dd>
                  {formatDate(g.output_expires_at)} <span className="muted small">(then deleted; its URL answers 410)</span>
                </dd>
              </>
            )}
            {g.error && (
              <>
                <dt>Error</dt>
                <dd>{g.error}</dd>
              </>
            )}
          </dl>
        </section>
      </div>
      <section aria-labelledby="deliveries-heading" className="section">
        <h2 id="deliveries-heading">Webhook deliveries</h2>
        <Deliveries
          detail={state.data}
          onRedeliver={async () => {
            const delivery = await dashboardApi.redeliver(g.id);
            reload();
            return delivery.id;
          }}
        />
      </section>
    </main>
  );
}
