import { GENERATION_TYPES, Model, ModelsPage } from '../api/api';
import { credits, planLabel, TYPE_LABELS } from '../lib/format';
import { DEMO_HINT, isDemo, ProviderBadge } from './model-label';
import { modelSummary } from './playground-request';

/** The playground's model select, grouped by type, with the chosen model's facts (price, mode, plan) and its error. */
export function ModelField({
  id,
  catalogue,
  model,
  error,
  onChange,
}: {
  id: string;
  catalogue: ModelsPage;
  model: Model;
  error: string | undefined;
  onChange: (modelId: string) => void;
}) {
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>Model</label>
      <select
        id={id}
        value={model.id}
        onChange={(e) => onChange(e.target.value)}
        aria-describedby={`${id}-facts${error ? ` ${id}-error` : ''}`}
        aria-invalid={error ? true : undefined}
      >
        {GENERATION_TYPES.map((type) => {
          const ofType = catalogue.data.filter((m) => m.type === type);
          if (ofType.length === 0) return null;
          return (
            <optgroup key={type} label={TYPE_LABELS[type]}>
              {ofType.map((m) => (
                <option key={m.id} value={m.id} disabled={!m.available}>
                  {m.name} — {m.available ? modelSummary(m) : 'unavailable'}
                </option>
              ))}
            </optgroup>
          );
        })}
      </select>
      <p className="hint model-facts" id={`${id}-facts`}>
        <ProviderBadge model={model} /> <span className="mono">{model.id}</span> · {TYPE_LABELS[model.type]} · {credits(model.credits)}
        {model.price_multipliers && model.price_multipliers.length > 0 ? ` × ${model.price_multipliers.join(' × ')}` : ''} (needs {credits(model.minimum_credits)}{' '}
        available) · {model.synchronous ? 'synchronous: the answer waits for the result' : 'asynchronous: answered at once, then polled'} ·{' '}
        {planLabel(model.min_plan)} plan or above
        {model.description && (
          <>
            <br />
            {model.description}
          </>
        )}
      </p>
      {isDemo(model) && (
        <p className="hint demo-warning" data-testid="demo-warning">
          <strong>Demo model:</strong> {DEMO_HINT}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
