import { useEffect, useState } from 'react';
import { ApiError, dashboardApi, Delivery, DeliveryAttempt, Generation, GenerationDetail } from '../api';
import { CopyButton, EmptyState, Loading, LoadError, Notice, PageHeading, StatusBadge } from '../components/ui';
import { formatDate, formatTime, shortId, TYPE_LABELS } from '../format';
import { Link } from '../router';
import { useAsync } from '../use-async';

const POLL_MS = 2000;

function Preview({ generation }: { generation: Generation }) {
  if (generation.status === 'failed') {
    return (
      <Notice tone="warning" title="This generation failed">
        <p>{generation.error ?? 'No reason was given.'} No credits were charged.</p>
      </Notice>
    );
  }
  if (generation.status !== 'completed' || !generation.output_url) {
    return (
      <Notice title={generation.status === 'queued' ? 'Waiting for a free slot' : 'Being generated'}>
        <p role="status">This page updates by itself when the output is ready.</p>
      </Notice>
    );
  }
  const url = generation.output_url;
  const alt = `Output of “${generation.prompt}”`;
  switch (generation.type) {
    case 'TEXT_TO_IMAGE':
      return (
        <figure className="preview">
          <img src={url} alt={alt} />
          <figcaption>
            <a href={url} target="_blank" rel="noreferrer">
              Open the image in a new tab
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_VIDEO':
      return (
        <figure className="preview">
          <video src={url} controls loop muted playsInline aria-label={alt} />
          <figcaption>
            <a href={url} download>
              Download the video (MP4)
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_AUDIO':
      return (
        <figure className="preview preview-audio">
          <audio src={url} controls aria-label={alt} />
          <figcaption>
            <a href={url} download>
              Download the audio (WAV)
            </a>
          </figcaption>
        </figure>
      );
    case 'TEXT_TO_3D':
      return (
        <div className="preview preview-file">
          <p>3D model in binary glTF (.glb): open it in any glTF viewer or 3D tool.</p>
          <a className="button button-primary" href={url} download>
            Download the 3D model (.glb)
          </a>
        </div>
      );
  }
}

const DELIVERY_STATUS: Record<Delivery['status'], string> = { pending: 'In progress', succeeded: 'Delivered', failed: 'Failed' };

function Deliveries({ detail, onRedeliver }: { detail: GenerationDetail; onRedeliver: () => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const deliveries = detail.deliveries;
  if (!deliveries.available) {
    return <Notice title="Delivery log unavailable">{deliveries.message && <p>{deliveries.message}</p>}</Notice>;
  }
  const redeliver = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await onRedeliver();
      setMessage({ tone: 'ok', text: 'Sent again as a new delivery; it appears below.' });
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
      {finished && deliveries.data.length > 0 && (
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

function attemptResult(attempt: DeliveryAttempt): string {
  if (attempt.outcome === 'in_flight') return 'Sending…';
  const parts = [attempt.outcome === 'succeeded' ? 'Delivered' : 'Failed'];
  if (attempt.status_code) parts.push(`HTTP ${attempt.status_code}`);
  if (attempt.error) parts.push(attempt.error);
  return parts.join(' · ');
}

function DeliveryItem({ delivery }: { delivery: Delivery }) {
  return (
    <li className="card delivery">
      <div className="delivery-head">
        <span>
          <span className="mono small">{delivery.id}</span>
          {delivery.redelivery_of && <span className="muted small"> · redelivery</span>}
        </span>
        <span className={`badge badge-${delivery.status}`}>{DELIVERY_STATUS[delivery.status]}</span>
      </div>
      <p className="small muted delivery-meta">
        <span className="mono break">{delivery.url}</span> · {delivery.event} · {formatDate(delivery.created_at)} · attempt {delivery.attempts_made} of{' '}
        {delivery.max_attempts}
        {delivery.next_attempt_at && delivery.status === 'pending' ? ` · next ${formatDate(delivery.next_attempt_at)}` : ''}
      </p>
      {delivery.attempts.length > 0 && (
        <table className="table compact">
          <caption className="visually-hidden">Attempts of delivery {delivery.id}</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">When</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Time
              </th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((a) => (
              <tr key={a.number}>
                <td>{a.number}</td>
                <td>{formatTime(a.started_at)}</td>
                <td className={a.outcome === 'failed' ? 'text-danger' : undefined}>{attemptResult(a)}</td>
                <td className="num">{a.duration_ms != null ? `${a.duration_ms} ms` : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}

export function GenerationPage({ id }: { id: string }) {
  const [state, reload] = useAsync(() => dashboardApi.generation(id), [id]);
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
            <dt>ID</dt>
            <dd>
              <span className="mono small break">{g.id}</span> <CopyButton value={g.id} label="Copy ID" />
            </dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={g.status} />
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
            <dd>{formatDate(g.started_at)}</dd>
            <dt>Completed</dt>
            <dd>{formatDate(g.completed_at)}</dd>
            <dt>Output URL</dt>
            <dd>{g.output_url ? <span className="mono small break">{g.output_url}</span> : '—'}</dd>
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
            await dashboardApi.redeliver(g.id);
            reload();
          }}
        />
      </section>
    </main>
  );
}
