import { FormEvent, useEffect, useState } from 'react';
import { ApiError, ApiKey, dashboardApi } from '../api/api';
import { DeliveryItem } from './delivery-item';
import { Field, LoadError } from './ui';
import { useAsync } from '../lib/use-async';

const TEST_POLL_MS = 1500;

/**
 * "Send a test event": a signed generation.completed-shaped delivery marked as a test, to the key's
 * URL or one typed in; the key's latest tests are listed with their attempts, refreshed while one is
 * under way.
 */
export function TestEvents({ apiKey }: { apiKey: ApiKey }) {
  const [state, reload, setList] = useAsync(() => dashboardApi.testEvents(apiKey.id), [apiKey.id]);
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const pending = state.status === 'ready' && state.data.data.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = window.setTimeout(reload, TEST_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [pending, state, reload]);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const delivery = await dashboardApi.sendTestEvent(apiKey.id, url.trim() || null);
      setList({ data: [delivery, ...(state.status === 'ready' ? state.data.data : [])].slice(0, 5) });
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The test event could not be sent.');
    } finally {
      setBusy(false);
    }
  };

  const inputId = `test-url-${apiKey.id}`;
  const canSend = apiKey.has_webhook_secret;
  return (
    <div className="test-events">
      <form className="inline-form" onSubmit={(e) => void send(e)} noValidate aria-label={`Send a test event for ${apiKey.name}`}>
        <Field
          id={inputId}
          label={apiKey.webhook_url ? 'Send a test event to (optional)' : 'Send a test event to'}
          hint={
            canSend
              ? `A signed generation.completed event marked as a test (X-Service-Test: true, an id starting with test_), ${
                  apiKey.webhook_url ? 'to the default URL unless you type another' : 'to the URL you type'
                }. Nothing is charged.`
              : 'Generate a signing secret first: every event is signed.'
          }
          type="url"
          inputMode="url"
          placeholder={apiKey.webhook_url ?? 'https://example.com/webhooks/generation'}
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          error={error}
          disabled={!canSend}
        />
        <button type="submit" className="button button-secondary" disabled={busy || pending || !canSend} aria-label={`Send a test event for ${apiKey.name}`}>
          {busy ? 'Sending…' : 'Send a test event'}
        </button>
        {pending && <span className="hint"> The last test is still being delivered.</span>}
      </form>
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && state.data.data.length > 0 && (
        <details className="test-log" open>
          <summary className="small">Latest test events ({state.data.data.length})</summary>
          <ol className="deliveries">
            {state.data.data.map((d) => (
              <DeliveryItem key={d.id} delivery={d} />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
