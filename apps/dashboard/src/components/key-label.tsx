import { FormEvent, useState } from 'react';
import { ApiError, ApiKey, dashboardApi, Scope } from '../api';
import { Field, FormError } from './ui';

/** The permissions a key may have, as the create form and the edit form show them. */
export const SCOPES: Array<{ scope: Scope; label: string; hint: string }> = [
  { scope: 'generate', label: 'Generate', hint: 'Submit generations (POST /api/v1/generate).' },
  { scope: 'read', label: 'Read', hint: 'Read generations, models and credits.' },
];

/** Renames a key and changes its permissions (admins and owners); both apply to the key's next request. */
export function KeyLabelEditor({ apiKey, onChanged, onClose }: { apiKey: ApiKey; onChanged: (key: ApiKey) => void; onClose: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const [scopes, setScopes] = useState<Scope[]>(apiKey.scopes);
  const [errors, setErrors] = useState<{ name?: string; scopes?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const local = { name: name.trim() === '' ? 'Enter a name for the key.' : undefined, scopes: scopes.length === 0 ? 'Choose at least one permission.' : undefined };
    setErrors(local);
    if (local.name || local.scopes) return;
    setBusy(true);
    try {
      onChanged(await dashboardApi.relabelKey(apiKey.id, { name: name.trim(), scopes }));
      onClose();
    } catch (err) {
      if (err instanceof ApiError && (err.field === 'name' || err.field === 'scopes')) setErrors({ [err.field]: err.detail });
      else setErrors({ form: err instanceof ApiError ? err.detail : 'The key could not be changed.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="inline-form" onSubmit={(e) => void save(e)} noValidate aria-label={`Name and permissions of ${apiKey.name}`}>
      <Field id={`key-name-${apiKey.id}`} label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} maxLength={100} autoFocus />
      <fieldset className={`field${errors.scopes ? ' field-invalid' : ''}`}>
        <legend>Permissions</legend>
        {SCOPES.map(({ scope, label, hint }) => (
          <div className="check" key={scope}>
            <input
              type="checkbox"
              id={`key-${apiKey.id}-scope-${scope}`}
              checked={scopes.includes(scope)}
              onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
            />
            <label htmlFor={`key-${apiKey.id}-scope-${scope}`}>{label}</label>
            <span className="hint">{hint}</span>
          </div>
        ))}
        {errors.scopes && (
          <p className="field-error" role="alert">
            {errors.scopes}
          </p>
        )}
      </fieldset>
      <FormError message={errors.form ?? null} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button button-link" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
