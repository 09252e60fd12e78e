import { FormEvent, ReactNode, useState } from 'react';
import { ApiError } from '../api/api';
import { FormError } from './ui';

/** The message of each field that was refused, and `form` for the rest. */
export type EditorErrors<F extends string> = Partial<Record<F | 'form', string>>;

/** Runs a save of the editor (the submit, or another action such as "Remove URL") with its busy state and errors. */
export type RunSave = (action: () => Promise<string | void>) => void;

interface InlineEditorProps<F extends string> {
  /** The form's accessible name, or the id of the heading that names it. */
  label?: string;
  labelledBy?: string;
  /** `inline`: a small form in place of a value, its buttons in a row with Cancel; `card`: a form of its own. */
  variant?: 'inline' | 'card';
  /** The fields an answer may name (`ApiError.field`): its message is shown beside that field. */
  fields?: readonly F[];
  /** Every error is shown on this field (a form of one field), never below the form. */
  errorsOn?: F;
  /** The form's message when the save fails without an answer that explains it. */
  failure: string;
  /** The checks made before anything is sent; a message for a field stops the save. */
  validate?: () => Partial<Record<F, string | undefined>>;
  /** Saves; a returned text is shown as a success notice. */
  onSave: () => Promise<string | void>;
  submitLabel: string;
  busyLabel?: string;
  onCancel?: () => void;
  /** More buttons after the submit button (inline variant). */
  extraActions?: (run: RunSave, busy: boolean) => ReactNode;
  children: (errors: EditorErrors<F>) => ReactNode;
}

/**
 * The shell every edit form of the dashboard shares: checks first, then one save at a time (the
 * submit button says it is busy), an answer's error beside the field it names or below the form, and
 * Cancel for an editor shown in place of a value.
 */
export function InlineEditor<F extends string>({
  label,
  labelledBy,
  variant = 'inline',
  fields = [],
  errorsOn,
  failure,
  validate,
  onSave,
  submitLabel,
  busyLabel = 'Saving…',
  onCancel,
  extraActions,
  children,
}: InlineEditorProps<F>) {
  const [errors, setErrors] = useState<EditorErrors<F>>({});
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const placeOf = (error: unknown): F | 'form' => {
    if (errorsOn) return errorsOn;
    const field = error instanceof ApiError ? (fields.find((f) => f === error.field) ?? null) : null;
    return field ?? 'form';
  };
  const run: RunSave = (action) => {
    setBusy(true);
    setErrors({});
    setDone(null);
    void (async () => {
      try {
        const message = await action();
        if (message) setDone(message);
      } catch (error) {
        setErrors({ [placeOf(error)]: error instanceof ApiError ? error.detail : failure } as EditorErrors<F>);
      } finally {
        setBusy(false);
      }
    })();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    const local = validate?.() ?? {};
    const refused = Object.fromEntries(Object.entries(local).filter(([, message]) => message)) as EditorErrors<F>;
    setErrors(refused);
    if (Object.keys(refused).length > 0) return;
    run(onSave);
  };

  const submitButton = (
    <button type="submit" className="button button-primary" disabled={busy}>
      {busy ? busyLabel : submitLabel}
    </button>
  );
  return (
    <form
      className={variant === 'inline' ? 'inline-form' : 'card narrow-card'}
      onSubmit={submit}
      noValidate
      aria-label={label}
      aria-labelledby={labelledBy}
    >
      {children(errors)}
      {!errorsOn && <FormError message={errors.form ?? null} />}
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      {variant === 'card' ? (
        submitButton
      ) : (
        <div className="actions">
          {submitButton}
          {extraActions?.(run, busy)}
          {onCancel && (
            <button type="button" className="button button-link" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      )}
    </form>
  );
}

/** A setting shown as its value with an Edit (or Set) button that opens its editor in place. */
export function InlineValue({
  label,
  children,
  action,
  actionLabel,
  onEdit,
}: {
  label: string;
  children: ReactNode;
  action: 'Edit' | 'Set';
  actionLabel: string;
  onEdit: () => void;
}) {
  return (
    <div className="kv">
      <span className="kv-label">{label}</span>
      {children}
      <button type="button" className="button button-link" onClick={onEdit} aria-label={actionLabel}>
        {action}
      </button>
    </div>
  );
}
