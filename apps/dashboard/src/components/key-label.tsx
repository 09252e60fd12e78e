import { useState } from 'react';
import { ApiKey, dashboardApi, Scope } from '../api/api';
import { InlineEditor } from './inline-editor';
import { Field } from './ui';

/** The permissions a key may have, as the create form and the edit form show them. */
export const SCOPES: Array<{ scope: Scope; label: string; hint: string }> = [
  { scope: 'generate', label: 'Generate', hint: 'Submit generations (POST /api/v1/generate).' },
  { scope: 'read', label: 'Read', hint: 'Read generations, models and credits.' },
];

/** Renames a key and changes its permissions (admins and owners); both apply to the key's next request. */
export function KeyLabelEditor({ apiKey, onChanged, onClose }: { apiKey: ApiKey; onChanged: (key: ApiKey) => void; onClose: () => void }) {
  const [name, setName] = useState(apiKey.name);
  const [scopes, setScopes] = useState<Scope[]>(apiKey.scopes);
  return (
    <InlineEditor
      label={`Name and permissions of ${apiKey.name}`}
      fields={['name', 'scopes'] as const}
      failure="The key could not be changed."
      validate={() => ({ name: name.trim() === '' ? 'Enter a name for the key.' : undefined, scopes: scopes.length === 0 ? 'Choose at least one permission.' : undefined })}
      onSave={async () => {
        onChanged(await dashboardApi.relabelKey(apiKey.id, { name: name.trim(), scopes }));
        onClose();
      }}
      submitLabel="Save"
      onCancel={onClose}
    >
      {(errors) => (
        <>
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
        </>
      )}
    </InlineEditor>
  );
}
