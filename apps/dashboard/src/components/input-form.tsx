import { useId } from 'react';
import type { InputProperty, InputSchema } from '../api/api';

/** What the customer set, by field; a field left alone is absent (the service fills its default in). */
export type InputValues = Record<string, unknown>;

/** A range this small is a slider (with its number beside it); a wider one is a number field. */
const MAX_SLIDER_STEPS = 1000;

/** "num_inference_steps" → "Num inference steps" (the schema's `title` wins). */
export function fieldLabel(name: string, property: InputProperty): string {
  if (property.title) return property.title;
  const words = name.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The order fields are laid out in, by control: choices, ranges, numbers, text, media, switches. */
const KIND_ORDER: Record<FieldKind, number> = { select: 0, slider: 1, number: 2, text: 3, media: 4, checkbox: 5 };

/**
 * The fields of a schema: required ones first, then grouped by control (the stored schema keeps no
 * property order of its own: PostgreSQL's jsonb sorts keys), by name within a group.
 */
export function schemaFields(schema: InputSchema | null | undefined): Array<[string, InputProperty]> {
  const required = new Set(schema?.required ?? []);
  return Object.entries(schema?.properties ?? {}).sort(
    ([a, pa], [b, pb]) =>
      Number(required.has(b)) - Number(required.has(a)) || KIND_ORDER[fieldKind(pa)] - KIND_ORDER[fieldKind(pb)] || a.localeCompare(b),
  );
}

/** How a field is drawn: by the keywords the service enforces (type, enum, minimum/maximum, format uri). */
export type FieldKind = 'select' | 'slider' | 'number' | 'checkbox' | 'media' | 'text';

export function fieldKind(property: InputProperty): FieldKind {
  if (property.enum && property.enum.length > 0) return 'select';
  if (property.type === 'boolean') return 'checkbox';
  if (property.type === 'integer' || property.type === 'number') {
    const { minimum, maximum } = property;
    if (minimum === undefined || maximum === undefined) return 'number';
    const steps = property.type === 'integer' ? maximum - minimum : (maximum - minimum) / stepOf(property);
    return steps > 0 && steps <= MAX_SLIDER_STEPS ? 'slider' : 'number';
  }
  if (property.format === 'uri') return 'media';
  return 'text';
}

function stepOf(property: InputProperty): number {
  if (property.type === 'integer') return 1;
  const span = (property.maximum ?? 1) - (property.minimum ?? 0);
  return span <= 2 ? 0.01 : span <= 20 ? 0.1 : 1;
}

/** The value a field shows: what the customer set, else the schema's default. */
function shown(values: InputValues, name: string, property: InputProperty): unknown {
  return name in values ? values[name] : property.default;
}

/** The range and default in words, for the hint: "Whole number, 1 to 4; default 1.", "Default 1:1.", "On by default." */
export function constraintHint(property: InputProperty): string | null {
  let range = '';
  if (property.minimum !== undefined && property.maximum !== undefined) range = `${property.minimum} to ${property.maximum}`;
  else if (property.minimum !== undefined) range = `at least ${property.minimum}`;
  else if (property.maximum !== undefined) range = `at most ${property.maximum}`;
  if (property.enum) range = '';
  if (property.type === 'integer' && range) range = `whole number, ${range}`;
  let fallback = '';
  if (property.type === 'boolean' && typeof property.default === 'boolean') fallback = property.default ? 'on by default' : 'off by default';
  else if (property.default !== undefined && property.default !== null && property.default !== '') fallback = `default ${String(property.default)}`;
  const text = [range, fallback].filter(Boolean).join('; ');
  return text ? `${text.charAt(0).toUpperCase()}${text.slice(1)}.` : null;
}

interface InputFormProps {
  schema: InputSchema;
  values: InputValues;
  errors: Record<string, string>;
  onChange: (values: InputValues) => void;
  /** Uploads a file for a media field and answers the URL the service gives it; absent, only a URL can be given. */
  onUpload?: (field: string, file: File) => Promise<string>;
  uploading?: string | null;
}

/**
 * The model's inputs as a form, built from its JSON Schema: enums as selects, short ranges as sliders
 * with their number, other numbers as number fields, booleans as checkboxes, media (`format: uri`) as
 * a URL field with an upload button. Only fields the customer changes are sent.
 */
export function InputForm({ schema, values, errors, onChange, onUpload, uploading }: InputFormProps) {
  const base = useId();
  const fields = schemaFields(schema);
  if (fields.length === 0) return null;
  const required = new Set(schema.required ?? []);
  const set = (name: string, value: unknown) => {
    const next = { ...values };
    if (value === undefined || value === '') delete next[name];
    else next[name] = value;
    onChange(next);
  };
  return (
    <fieldset className="input-form" data-testid="input-form">
      <legend>Model inputs</legend>
      <p className="hint">From the model's input schema. Leave a field as it is to use its default.</p>
      <div className="input-grid">
        {fields.map(([name, property]) => {
          const id = `${base}-${name}`;
          const kind = fieldKind(property);
          const error = errors[name];
          const hint = [property.description, constraintHint(property)].filter(Boolean).join(' ');
          const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
          const common = { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy } as const;
          const value = shown(values, name, property);
          const reset = name in values && (
            <button type="button" className="reset" onClick={() => set(name, undefined)} aria-label={`Reset ${fieldLabel(name, property)} to its default`}>
              reset
            </button>
          );
          const label = (
            <div className="input-label">
              <label htmlFor={id}>
                {fieldLabel(name, property)}
                {required.has(name) && <span className="required"> (required)</span>}
              </label>
              {reset}
            </div>
          );
          return (
            <div key={name} className={`field input-field input-${kind}${error ? ' field-invalid' : ''}`} data-input={name}>
              {kind === 'checkbox' ? (
                <div className="input-label">
                  <label className="check" htmlFor={id}>
                    <input {...common} type="checkbox" checked={value === true} onChange={(e) => set(name, e.target.checked)} />
                    <span>{fieldLabel(name, property)}</span>
                  </label>
                  {reset}
                </div>
              ) : (
                label
              )}
              {hint && (
                <p className="hint" id={`${id}-hint`}>
                  {hint}
                </p>
              )}
              {kind === 'select' && (
                <select
                  {...common}
                  value={value === undefined || value === null ? '' : String(value)}
                  onChange={(e) => {
                    const picked = (property.enum ?? []).find((option) => String(option) === e.target.value);
                    set(name, e.target.value === '' ? undefined : picked);
                  }}
                >
                  {property.default === undefined && <option value="">(not set)</option>}
                  {(property.enum ?? []).map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {String(option)}
                      {option === property.default ? ' (default)' : ''}
                    </option>
                  ))}
                </select>
              )}
              {kind === 'slider' && (
                <div className="slider-row">
                  <input
                    type="range"
                    aria-label={`${fieldLabel(name, property)} slider`}
                    min={property.minimum}
                    max={property.maximum}
                    step={stepOf(property)}
                    value={typeof value === 'number' ? value : (property.minimum ?? 0)}
                    onChange={(e) => set(name, Number(e.target.value))}
                  />
                  <input {...common} type="number" inputMode="decimal" min={property.minimum} max={property.maximum} step={stepOf(property)}
                    value={typeof value === 'number' ? value : ''}
                    onChange={(e) => set(name, e.target.value === '' ? undefined : Number(e.target.value))}
                  />
                </div>
              )}
              {kind === 'number' && (
                <input {...common} type="number" inputMode={property.type === 'integer' ? 'numeric' : 'decimal'}
                  min={property.minimum} max={property.maximum} step={property.type === 'integer' ? 1 : 'any'}
                  value={typeof value === 'number' ? value : ''}
                  placeholder={property.default === undefined ? '(not set)' : undefined}
                  onChange={(e) => set(name, e.target.value === '' ? undefined : Number(e.target.value))}
                />
              )}
              {kind === 'text' && (
                <input {...common} type="text" value={typeof value === 'string' ? value : ''} onChange={(e) => set(name, e.target.value)} />
              )}
              {kind === 'media' && (
                <div className={onUpload ? 'media-row' : undefined}>
                  <input {...common} type="url" placeholder="https://…" value={typeof value === 'string' ? value : ''} onChange={(e) => set(name, e.target.value.trim())} />
                  {onUpload && (
                    <label className="button button-secondary upload-button">
                      {uploading === name ? 'Uploading…' : 'Upload a file'}
                      <input
                        type="file"
                        className="visually-hidden"
                        aria-label={`Upload a file for ${fieldLabel(name, property)}`}
                        disabled={uploading === name}
                        onChange={(e) => {
                          const file = e.target.files?.[0];
                          e.target.value = '';
                          if (file) void onUpload(name, file).then((url) => set(name, url), () => undefined);
                        }}
                      />
                    </label>
                  )}
                </div>
              )}
              {error && (
                <p className="field-error" id={`${id}-error`} role="alert">
                  {error}
                </p>
              )}
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
