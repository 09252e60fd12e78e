import { FormEvent, useEffect, useRef, useState } from 'react';
import { ApiError, ApiKey, CreatedKey, dashboardApi, KeyCaps, Scope, WebhookScheme } from '../api';
import { DeliveryItem } from '../components/delivery-item';
import { SettingsNav } from '../components/settings-nav';
import { ConfirmDialog, EmptyState, Field, FormError, Loading, LoadError, Notice, PageHeading, SecretReveal } from '../components/ui';
import { formatDate } from '../format';
import { useAsync } from '../use-async';

const SCOPES: Array<{ scope: Scope; label: string; hint: string }> = [
  { scope: 'generate', label: 'Generate', hint: 'Submit generations (POST /api/v1/generate).' },
  { scope: 'read', label: 'Read', hint: 'Read generations, models and credits.' },
];

const WEBHOOK_HINT = 'Where we POST a signed event when a generation finishes. Optional; a request can name another URL.';

function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['generate', 'read']);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [errors, setErrors] = useState<{ name?: string; scopes?: string; webhook_url?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local: typeof errors = {};
    if (name.trim() === '') local.name = 'Enter a name, such as “production server”.';
    if (scopes.length === 0) local.scopes = 'Choose at least one permission.';
    setErrors(local);
    if (local.name || local.scopes) return;
    setBusy(true);
    try {
      const created = await dashboardApi.createKey({ name: name.trim(), scopes, webhook_url: webhookUrl.trim() || null });
      setName('');
      setWebhookUrl('');
      setScopes(['generate', 'read']);
      onCreated(created);
    } catch (error) {
      if (error instanceof ApiError && (error.field === 'name' || error.field === 'scopes' || error.field === 'webhook_url')) {
        setErrors({ [error.field]: error.detail });
      } else setErrors({ form: error instanceof ApiError ? error.detail : 'The key could not be created.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="create-heading">
      <h2 id="create-heading">Create a key</h2>
      <Field
        id="key-name"
        label="Name"
        hint="To tell your keys apart, e.g. where it is used."
        value={name}
        maxLength={100}
        onChange={(e) => setName(e.target.value)}
        error={errors.name}
        required
      />
      <fieldset className={`field${errors.scopes ? ' field-invalid' : ''}`} aria-describedby={errors.scopes ? 'scopes-error' : undefined}>
        <legend>Permissions</legend>
        {SCOPES.map(({ scope, label, hint }) => (
          <div className="check" key={scope}>
            <input
              type="checkbox"
              id={`scope-${scope}`}
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              aria-describedby={`scope-${scope}-hint`}
            />
            <label htmlFor={`scope-${scope}`}>{label}</label>
            <span className="hint" id={`scope-${scope}-hint`}>
              {hint}
            </span>
          </div>
        ))}
        {errors.scopes && (
          <p className="field-error" id="scopes-error" role="alert">
            {errors.scopes}
          </p>
        )}
      </fieldset>
      <Field
        id="key-webhook-url"
        label="Default webhook URL (optional)"
        hint={WEBHOOK_HINT}
        type="url"
        inputMode="url"
        placeholder="https://example.com/webhooks/generation"
        value={webhookUrl}
        onChange={(e) => setWebhookUrl(e.target.value)}
        error={errors.webhook_url}
      />
      <FormError message={errors.form ?? null} />
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create key'}
      </button>
    </form>
  );
}

function NewKeyPanel({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const ref = useRef<HTMLElement>(null);
  // Focus moves to the new key once, so keyboard and screen reader users land on it.
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className="card reveal" aria-labelledby="new-key-heading" tabIndex={-1} ref={ref}>
      <h2 id="new-key-heading">Your new key “{created.key.name}”</h2>
      <Notice tone="warning" title="Copy it now: it is shown only once.">
        <p>We keep only a fingerprint of it. If you lose it, revoke it and create another.</p>
      </Notice>
      <SecretReveal label="API key" value={created.api_key} />
      {created.webhook_secret && (
        <SecretReveal label="Webhook signing secret" value={created.webhook_secret}>
          <p className="hint">Your receiver verifies each webhook with it. It is also shown only once; you can renew it at any time.</p>
        </SecretReveal>
      )}
      <button type="button" className="button button-primary" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

function WebhookEditor({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: (key: ApiKey, secret: string | null) => void }) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(apiKey.webhook_url ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputId = `webhook-${apiKey.id}`;

  const save = async (url: string | null) => {
    setBusy(true);
    setError(null);
    try {
      const change = await dashboardApi.updateKey(apiKey.id, url);
      setEditing(false);
      onChanged(change.key, change.webhook_secret);
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The webhook URL could not be saved.');
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <div className="kv">
        <span className="kv-label">Default webhook URL</span>
        <span className={apiKey.webhook_url ? 'mono small break' : 'muted'}>{apiKey.webhook_url ?? 'None'}</span>
        <button
          type="button"
          className="button button-link"
          onClick={() => {
            setValue(apiKey.webhook_url ?? '');
            setEditing(true);
          }}
          aria-label={`${apiKey.webhook_url ? 'Edit' : 'Set'} the default webhook URL of ${apiKey.name}`}
        >
          {apiKey.webhook_url ? 'Edit' : 'Set'}
        </button>
      </div>
    );
  }
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(value.trim() || null);
      }}
      noValidate
    >
      <Field
        id={inputId}
        label={`Default webhook URL of “${apiKey.name}”`}
        hint={apiKey.has_webhook_secret ? WEBHOOK_HINT : `${WEBHOOK_HINT} Saving a URL also generates the key's signing secret.`}
        type="url"
        inputMode="url"
        placeholder="https://example.com/webhooks/generation"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={error}
        autoFocus
      />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {apiKey.webhook_url && (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => void save(null)}>
            Remove URL
          </button>
        )}
        <button type="button" className="button button-link" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A cap field: empty is no cap; otherwise a whole number of credits, at least 1. */
function parseCapInput(value: string): { cap: number | null } | { error: string } {
  const text = value.trim();
  if (text === '') return { cap: null };
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 2_147_483_647) return { error: 'Enter a whole number of credits, at least 1, or leave it empty for no cap.' };
  return { cap: Number(text) };
}

const capText = (cap: number | null, spent: number, period: 'day' | 'month') => {
  const when = period === 'day' ? 'today' : 'this month';
  return cap === null ? `no ${period === 'day' ? 'daily' : 'monthly'} cap (${spent} spent ${when})` : `${spent} of ${cap} credits ${when}`;
};

/**
 * The key's spending caps per UTC day and month: a generation whose credits would pass one is refused
 * (402 spending_cap_reached) until the period resets.
 */
function SpendingCaps({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: (caps: KeyCaps) => void }) {
  const caps = apiKey.caps;
  const [editing, setEditing] = useState(false);
  const [perDay, setPerDay] = useState('');
  const [perMonth, setPerMonth] = useState('');
  const [errors, setErrors] = useState<{ per_day?: string; per_month?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const day = parseCapInput(perDay);
    const month = parseCapInput(perMonth);
    const local = { per_day: 'error' in day ? day.error : undefined, per_month: 'error' in month ? month.error : undefined };
    setErrors(local);
    if ('error' in day || 'error' in month) return;
    setBusy(true);
    try {
      const view = await dashboardApi.setKeyCaps(apiKey.id, { per_day: day.cap, per_month: month.cap });
      setEditing(false);
      onChanged(view);
    } catch (err) {
      if (err instanceof ApiError && (err.field === 'per_day' || err.field === 'per_month')) setErrors({ [err.field]: err.detail });
      else setErrors({ form: err instanceof ApiError ? err.detail : 'The caps could not be saved.' });
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <div className="kv">
        <span className="kv-label">Spending caps (UTC)</span>
        <span className={caps && (caps.per_day !== null || caps.per_month !== null) ? 'small' : 'muted small'} data-testid={`caps-${apiKey.id}`}>
          {caps ? `${capText(caps.per_day, caps.spent_today, 'day')}; ${capText(caps.per_month, caps.spent_this_month, 'month')}` : 'None'}
        </span>
        <button
          type="button"
          className="button button-link"
          onClick={() => {
            setPerDay(caps?.per_day?.toString() ?? '');
            setPerMonth(caps?.per_month?.toString() ?? '');
            setErrors({});
            setEditing(true);
          }}
          aria-label={`Set the spending caps of ${apiKey.name}`}
        >
          {caps && (caps.per_day !== null || caps.per_month !== null) ? 'Edit' : 'Set'}
        </button>
      </div>
    );
  }
  return (
    <form className="inline-form" onSubmit={(e) => void save(e)} noValidate aria-label={`Spending caps of ${apiKey.name}`}>
      <Field
        id={`cap-day-${apiKey.id}`}
        label="Credits per day (UTC)"
        hint="A generation that would pass it is refused until midnight UTC. Empty: no daily cap."
        inputMode="numeric"
        value={perDay}
        onChange={(e) => setPerDay(e.target.value)}
        error={errors.per_day}
        autoFocus
      />
      <Field
        id={`cap-month-${apiKey.id}`}
        label="Credits per month (UTC)"
        hint="Counted from the first of the month. Empty: no monthly cap."
        inputMode="numeric"
        value={perMonth}
        onChange={(e) => setPerMonth(e.target.value)}
        error={errors.per_month}
      />
      <FormError message={errors.form ?? null} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save caps'}
        </button>
        <button type="button" className="button button-link" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const TEST_POLL_MS = 1500;

/**
 * "Send a test event": a signed generation.completed-shaped delivery marked as a test, to the key's
 * URL or one typed in; the key's latest tests are listed with their attempts, refreshed while one is
 * under way.
 */
function TestEvents({ apiKey }: { apiKey: ApiKey }) {
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

const SCHEMES: Array<{ scheme: WebhookScheme; label: string }> = [
  { scheme: 'service', label: 'Service headers (X-Service-Signature)' },
  { scheme: 'standard', label: 'Standard Webhooks (webhook-signature)' },
];

/**
 * How the key's webhooks are signed, and (Standard Webhooks only) a rotation with an overlap: both
 * secrets sign each delivery for the chosen hours, then only the new one.
 */
function WebhookSchemeSetting({
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

function KeyCard({ apiKey, onChanged, onRevoked }: { apiKey: ApiKey; onChanged: (key: ApiKey) => void; onRevoked: (key: ApiKey) => void }) {
  /** A secret just generated, shown once: the key's first, or a renewal (which makes the old one stop verifying). */
  const [secret, setSecret] = useState<{ value: string; renewed: boolean; rotated?: boolean } | null>(null);
  const [dialog, setDialog] = useState<'renew' | 'revoke' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const renew = async () => {
    setBusy(true);
    setError(null);
    const renewed = apiKey.has_webhook_secret;
    try {
      const change = await dashboardApi.renewSecret(apiKey.id);
      setSecret(change.webhook_secret ? { value: change.webhook_secret, renewed } : null);
      onChanged(change.key);
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The secret could not be generated.');
    } finally {
      setBusy(false);
      setDialog(null);
    }
  };
  const revoke = async () => {
    setBusy(true);
    setError(null);
    try {
      await dashboardApi.revokeKey(apiKey.id);
      onRevoked({ ...apiKey, status: 'revoked', revoked_at: new Date().toISOString() });
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The key could not be revoked.');
      setBusy(false);
      setDialog(null);
    }
  };

  return (
    <li className="card key" aria-labelledby={`key-${apiKey.id}-name`}>
      <div className="key-head">
        <h3 id={`key-${apiKey.id}-name`}>{apiKey.name}</h3>
        <span className="mono key-id" title="The key's prefix and last four characters">
          {apiKey.prefix}…{apiKey.last4}
        </span>
      </div>
      <dl className="key-meta small">
        <div>
          <dt>Permissions</dt>
          <dd>{apiKey.scopes.join(', ')}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatDate(apiKey.created_at)}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{apiKey.last_used_at ? formatDate(apiKey.last_used_at) : 'Never'}</dd>
        </div>
      </dl>
      <WebhookEditor
        apiKey={apiKey}
        onChanged={(key, newSecret) => {
          // The server generates a secret with a URL only when the key had none: its first.
          if (newSecret) setSecret({ value: newSecret, renewed: false });
          onChanged(key);
        }}
      />
      <SpendingCaps apiKey={apiKey} onChanged={(caps) => onChanged({ ...apiKey, caps })} />
      <WebhookSchemeSetting apiKey={apiKey} onChanged={onChanged} onRotated={(value) => setSecret({ value, renewed: false, rotated: true })} />
      <div className="kv">
        <span className="kv-label">Webhook signing secret</span>
        <span className={apiKey.has_webhook_secret ? '' : 'muted'}>{apiKey.has_webhook_secret ? 'Set (hidden)' : 'Not set'}</span>
        <button
          type="button"
          className="button button-link"
          disabled={busy}
          onClick={() => (apiKey.has_webhook_secret ? setDialog('renew') : void renew())}
          aria-label={`${apiKey.has_webhook_secret ? 'Renew secret' : 'Generate secret'} for ${apiKey.name}`}
        >
          {apiKey.has_webhook_secret ? 'Renew secret' : 'Generate secret'}
        </button>
      </div>
      {secret && (
        <div className="reveal-inline">
          <Notice tone="warning" title="Copy the signing secret now: it is shown only once.">
            <p>
              {secret.rotated
                ? 'Give it to your receiver before the overlap ends: until then each delivery is signed with both secrets.'
                : secret.renewed
                  ? 'Signatures made with the previous secret of this key no longer verify.'
                  : 'Your receiver verifies each webhook of this key with it.'}
            </p>
          </Notice>
          <SecretReveal label={`Webhook signing secret of “${apiKey.name}”`} value={secret.value} />
          <button type="button" className="button button-secondary" onClick={() => setSecret(null)}>
            Hide secret
          </button>
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <TestEvents apiKey={apiKey} />
      <div className="actions end">
        <button type="button" className="button button-danger-outline" onClick={() => setDialog('revoke')} aria-label={`Revoke ${apiKey.name}`}>
          Revoke
        </button>
      </div>
      <ConfirmDialog
        open={dialog === 'renew'}
        title="Renew the signing secret?"
        confirmLabel="Renew secret"
        danger
        busy={busy}
        onConfirm={() => void renew()}
        onCancel={() => setDialog(null)}
      >
        <p>
          From the next delivery on, including retries already under way, webhooks of <strong>{apiKey.name}</strong> are signed with the new secret
          only. <strong>Signatures made with the current secret fail verification at once.</strong>
        </p>
        <p>To avoid rejecting events, let your receiver accept both secrets during the switch (see the webhooks guide).</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog === 'revoke'}
        title={`Revoke “${apiKey.name}”?`}
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onConfirm={() => void revoke()}
        onCancel={() => setDialog(null)}
      >
        <p>Requests with this key are refused (401) immediately. This cannot be undone.</p>
      </ConfirmDialog>
    </li>
  );
}

export function ApiKeysPage() {
  const [state, reload, setKeys] = useAsync(() => dashboardApi.keys(), []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [announcement, setAnnouncement] = useState('');

  const replace = (key: ApiKey) => {
    // A changed key from the server has no caps: the listed ones stay.
    if (state.status === 'ready') setKeys({ data: state.data.data.map((k) => (k.id === key.id ? { ...k, ...key, caps: key.caps ?? k.caps } : k)) });
  };

  const active = state.status === 'ready' ? state.data.data.filter((k) => k.status === 'active') : [];
  const revoked = state.status === 'ready' ? state.data.data.filter((k) => k.status === 'revoked') : [];

  return (
    <main id="main">
      <PageHeading title="API keys">Settings</PageHeading>
      <SettingsNav />
      <p className="lead">
        API keys authenticate requests to <code>/api/v1</code> (<code>Authorization: Bearer &lt;key&gt;</code>). Keep them on your servers, never in
        client-side code.
      </p>
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      {created ? (
        <NewKeyPanel created={created} onDone={() => setCreated(null)} />
      ) : (
        <CreateKeyForm
          onCreated={(c) => {
            setCreated(c);
            if (state.status === 'ready') setKeys({ data: [c.key, ...state.data.data] });
            else reload();
          }}
        />
      )}
      <section aria-labelledby="keys-heading" className="section">
        <h2 id="keys-heading">Your keys</h2>
        {state.status === 'loading' && <Loading />}
        {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
        {state.status === 'ready' &&
          (active.length === 0 ? (
            <EmptyState title="You have no active API keys">
              <p>Create one above to start calling the API.</p>
            </EmptyState>
          ) : (
            <ul className="keys plain">
              {active.map((key) => (
                <KeyCard
                  key={key.id}
                  apiKey={key}
                  onChanged={replace}
                  onRevoked={(k) => {
                    replace(k);
                    setAnnouncement(`Key ${k.name} revoked.`);
                  }}
                />
              ))}
            </ul>
          ))}
        {revoked.length > 0 && (
          <details className="revoked">
            <summary>Revoked keys ({revoked.length})</summary>
            <ul className="plain">
              {revoked.map((k) => (
                <li key={k.id} className="revoked-item">
                  <span>{k.name}</span> <span className="mono small">{k.prefix}…{k.last4}</span>{' '}
                  <span className="muted small">revoked {formatDate(k.revoked_at)}</span>
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>
    </main>
  );
}
