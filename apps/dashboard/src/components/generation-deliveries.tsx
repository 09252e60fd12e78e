import { useState } from 'react';
import { ApiError, GenerationDetail } from '../api/api';
import { useCan } from '../lib/role';
import { Link } from '../lib/router';
import { DeliveryItem } from './delivery-item';
import { EmptyState, Notice } from './ui';

/** A generation's webhook deliveries, with Redeliver (developers and above) once it has finished. */
export function GenerationDeliveries({ detail, onRedeliver }: { detail: GenerationDetail; onRedeliver: () => Promise<string> }) {
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
