import { FormEvent, useState } from 'react';
import { ApiError, ApiKey, dashboardApi, WebhookScheme } from '../api/api';
import { InlineEditor, InlineValue } from './inline-editor';
import { Field } from './ui';
import { formatDate } from '../lib/format';

/** A key's webhook settings: its default URL, and how its deliveries are signed. */
export const WEBHOOK_HINT = 'Where we POST a signed event when a generation finishes. Optional; a request can name another URL.';

export function WebhookEditor({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: (key: ApiKey, secret: string | null) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(apiKey.webhook_url ?? '');

  const save = async (url: string | null) => {
    const change = await dashboardApi.updateKey(apiKey.id, url);
    setEditing(false);
    onChanged(change.key, change.webhook_secret);
  };

  if (!editing) {
    const action = apiKey.webhook_url ? 'Edit' : 'Set';
    return (
      <InlineValue
        label="Default webhook URL"
        action={action}
        actionLabel={`${action} the default webhook URL of ${apiKey.name}`}
        onEdit={() => {
          setValue(apiKey.webhook_url ?? '');
          setEditing(true);
        }}
      >
        <span className={apiKey.webhook_url ? 'mono small break' : 'muted'}>{apiKey.webhook_url ?? 'None'}</span>
      </InlineValue>
    );
  }
  return (
    <InlineEditor
      errorsOn="url"
      failure="The webhook URL could not be saved."
      onSave={() => save(value.trim() || null)}
      submitLabel="Save"
      onCancel={() => setEditing(false)}
      extraActions={(run, busy) =>
        apiKey.webhook_url && (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => run(() => save(null))}>
            Remove URL
          </button>
        )
      }
    >
      {(errors) => (
        <Field
          id={`webhook-${apiKey.id}`}
          label={`Default webhook URL of “${apiKey.name}”`}
          hint={apiKey.has_webhook_secret ? WEBHOOK_HINT : `${WEBHOOK_HINT} Saving a URL also generates the key's signing secret.`}
          type="url"
          inputMode="url"
          placeholder="https://example.com/webhooks/generation"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          error={errors.url}
          autoFocus
        />
      )}
    </InlineEditor>
  );
}

const SCHEMES: Array<{ scheme: WebhookScheme; label: string }> = [
  { scheme: 'service', label: 'Service headers (X-Service-Signature)' },
  { scheme: 'standard', label: 'Standard Webhooks (webhook-signature)' },
];

/**
 * How the key's webhooks are signed, and (Standard Webhooks only) a rotation with an overlap: both
 * secrets sign each delivery for the chosen hours, then only the new one.
 */
export function WebhookSchemeSetting({
  apiKey,
  onChanged,
  onRotated,
}: {
  apiKey: ApiKey;
  onChanged: (key: ApiKey) => void;
  onRotated: (secret: string) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [hours, setHours] = useState('24');
  const [error, setError] = useState<string | null>(null);

  const choose = async (scheme: WebhookScheme) => {
    setBusy(true);
    setError(null);
    try {
      onChanged(await dashboardApi.setWebhookScheme(apiKey.id, scheme));
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The scheme could not be changed.');
    } finally {
      setBusy(false);
    }
  };
  const rotate = async (event: FormEvent) => {
    event.preventDefault();
    const value = Number(hours);
    if (!(value > 0 && value <= 24)) {
      setError('Choose an overlap from a few minutes (0.1) to 24 hours.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const change = await dashboardApi.rotateSecret(apiKey.id, Math.max(1, Math.round(value * 3600)));
      if (change.webhook_secret) onRotated(change.webhook_secret);
      onChanged(change.key);
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The secret could not be rotated.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="webhook-scheme">
      <div className="kv">
        <label className="kv-label" htmlFor={`scheme-${apiKey.id}`}>
          Signature scheme
        </label>
        <select
          id={`scheme-${apiKey.id}`}
          value={apiKey.webhook_scheme}
          disabled={busy}
          onChange={(e) => void choose(e.target.value as WebhookScheme)}
        >
          {SCHEMES.map(({ scheme, label }) => (
            <option key={scheme} value={scheme}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {apiKey.previous_secret_until && (
        <p className="hint" data-testid={`overlap-${apiKey.id}`}>
          Rotating: deliveries carry signatures with the previous and the new secret until {formatDate(apiKey.previous_secret_until)}.
        </p>
      )}
      {apiKey.webhook_scheme === 'standard' && apiKey.has_webhook_secret && (
        <form className="inline-form" onSubmit={(e) => void rotate(e)} noValidate aria-label={`Rotate the signing secret of ${apiKey.name}`}>
          <Field
            id={`overlap-hours-${apiKey.id}`}
            label="Rotate with an overlap (hours, up to 24)"
            hint="A new secret now; both secrets sign each delivery for this long, then only the new one. No event fails verification meanwhile."
            inputMode="decimal"
            value={hours}
            onChange={(e) => setHours(e.target.value)}
          />
          <button type="submit" className="button button-secondary" disabled={busy}>
            Rotate secret
          </button>
        </form>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
