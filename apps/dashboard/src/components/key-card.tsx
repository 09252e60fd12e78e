import { useState } from 'react';
import { ApiError, ApiKey, dashboardApi } from '../api/api';
import { ConfirmDialog, Notice, SecretReveal } from './ui';
import { formatDate } from '../lib/format';
import { useCan } from '../lib/role';
import { KeyLabelEditor } from './key-label';
import { KeySettingsSummary } from './key-settings-summary';
import { SpendingCaps } from './key-caps';
import { TestEvents } from './key-test-events';
import { WebhookEditor, WebhookSchemeSetting } from './key-webhook';

/** One active key: its details, webhook, caps, signing secret, test events and revocation. */
export function KeyCard({ apiKey, onChanged, onRevoked }: { apiKey: ApiKey; onChanged: (key: ApiKey) => void; onRevoked: (key: ApiKey) => void }) {
  /** A secret just generated, shown once: the key's first, or a renewal (which makes the old one stop verifying). */
  const [secret, setSecret] = useState<{ value: string; renewed: boolean; rotated?: boolean } | null>(null);
  const [dialog, setDialog] = useState<'renew' | 'revoke' | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [editingLabel, setEditingLabel] = useState(false);
  const can = useCan();
  // Webhooks, secrets and caps are admins'; developers test and revoke; viewers read (the server refuses the rest anyway).
  const admin = can('admin');

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
      {admin &&
        (editingLabel ? (
          <KeyLabelEditor apiKey={apiKey} onChanged={onChanged} onClose={() => setEditingLabel(false)} />
        ) : (
          <div className="actions">
            <button type="button" className="button button-link" onClick={() => setEditingLabel(true)} aria-label={`Rename or change the permissions of ${apiKey.name}`}>
              Rename or change permissions
            </button>
          </div>
        ))}
      {admin ? (
        <>
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
        </>
      ) : (
        <KeySettingsSummary apiKey={apiKey} />
      )}
      <div className="kv">
        <span className="kv-label">Webhook signing secret</span>
        <span className={apiKey.has_webhook_secret ? '' : 'muted'}>{apiKey.has_webhook_secret ? 'Set (hidden)' : 'Not set'}</span>
        {admin && (
          <button
            type="button"
            className="button button-link"
            disabled={busy}
            onClick={() => (apiKey.has_webhook_secret ? setDialog('renew') : void renew())}
            aria-label={`${apiKey.has_webhook_secret ? 'Renew secret' : 'Generate secret'} for ${apiKey.name}`}
          >
            {apiKey.has_webhook_secret ? 'Renew secret' : 'Generate secret'}
          </button>
        )}
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
      {can('developer') && <TestEvents apiKey={apiKey} />}
      {can('developer') && (
        <div className="actions end">
          <button type="button" className="button button-danger-outline" onClick={() => setDialog('revoke')} aria-label={`Revoke ${apiKey.name}`}>
            Revoke
          </button>
        </div>
      )}
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
