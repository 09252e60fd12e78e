import { FormEvent, useEffect, useRef, useState } from 'react';
import { SCOPES } from '../components/key-label';
import { ApiError, ApiKey, CreatedKey, dashboardApi, Scope } from '../api/api';
import { KeyCard } from '../components/key-card';
import { WEBHOOK_HINT } from '../components/key-webhook';
import { SettingsNav } from '../components/settings-nav';
import { EmptyState, Field, FormError, Loading, LoadError, Notice, PageHeading, SecretReveal } from '../components/ui';
import { formatDate } from '../lib/format';
import { useCan } from '../lib/role';
import { useAsync } from '../lib/use-async';


function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedKey) => void }) {
  // Scopes and a webhook URL at creation are an admin's (the server refuses them from a developer).
  const admin = useCan()('admin');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['generate', 'read']);
  const [webhookUrl, setWebhookUrl] = useState('');
  const [errors, setErrors] = useState<{ name?: string; scopes?: string; webhook_url?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local: typeof errors = {};
    if (name.trim() === '') local.name = 'Enter a name, such as “production server”.';
    if (admin && scopes.length === 0) local.scopes = 'Choose at least one permission.';
    setErrors(local);
    if (local.name || local.scopes) return;
    setBusy(true);
    try {
      const created = await dashboardApi.createKey(admin ? { name: name.trim(), scopes, webhook_url: webhookUrl.trim() || null } : { name: name.trim() });
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
      {admin ? (
        <>
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
        </>
      ) : (
        <p className="hint">
          The key gets every permission, no webhook URL and the account&apos;s default spending caps. An admin or owner changes those.
        </p>
      )}
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

export function ApiKeysPage() {
  const [state, reload, setKeys] = useAsync(() => dashboardApi.keys(), []);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const can = useCan();

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
      {!can('developer') ? (
        <Notice title="Your role on this account is viewer.">
          <p>You can see its keys; developers, admins and owners create and revoke them.</p>
        </Notice>
      ) : created ? (
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
