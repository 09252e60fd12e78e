import { InputHTMLAttributes, ReactNode, useEffect, useId, useRef, useState } from 'react';
import type { JobStatus } from '../api/api';
import { STATUS_LABELS } from '../lib/format';

/** The page's title: sets document.title, and takes focus after navigation so screen readers announce it. */
export function PageHeading({ children, title }: { children: ReactNode; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Generation Service`;
    ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  );
}

type FieldProps = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  hint?: ReactNode;
  error?: string | null;
};

/** A labelled input with its hint and its error beside it (announced, and linked by aria-describedby). */
export function Field({ label, hint, error, id, ...input }: FieldProps) {
  const generated = useId();
  const inputId = id ?? generated;
  const hintId = `${inputId}-hint`;
  const errorId = `${inputId}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={inputId}>{label}</label>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      <input id={inputId} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <p className="form-error" role="alert">
      {message}
    </p>
  );
}

export function StatusBadge({ status }: { status: JobStatus }) {
  return <span className={`badge badge-${status}`}>{STATUS_LABELS[status]}</span>;
}

export function Notice({ tone = 'info', title, children }: { tone?: 'info' | 'warning' | 'success'; title?: string; children: ReactNode }) {
  return (
    <div className={`notice notice-${tone}`}>
      {title && <p className="notice-title">{title}</p>}
      {children}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  );
}

export function LoadError({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="notice notice-warning" role="alert">
      <p>{message}</p>
      {onRetry && (
        <button type="button" className="button button-secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Copies a value to the clipboard; says so in a polite live region. Falls back to selecting the text. */
export function CopyButton({ value, label, targetId }: { value: string; label: string; targetId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'select'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 4000);
    return () => window.clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      const input = targetId ? (document.getElementById(targetId) as HTMLInputElement | null) : null;
      input?.focus();
      input?.select();
      setState('select');
    }
  };
  return (
    <>
      <button type="button" className="button button-secondary" onClick={() => void copy()}>
        {state === 'copied' ? 'Copied' : label}
      </button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard.' : state === 'select' ? 'Selected: press Ctrl+C (or Cmd+C) to copy.' : ''}
      </span>
    </>
  );
}

/** A value shown once (a new API key, a new signing secret), with a copy button. */
export function SecretReveal({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  const id = useId();
  return (
    <div className="secret">
      <label htmlFor={id}>{label}</label>
      <div className="secret-row">
        <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
        <CopyButton value={value} label="Copy" targetId={id} />
      </div>
      {children}
    </div>
  );
}

/**
 * A confirmation in a native modal dialog: focus moves into it, Escape cancels, focus returns to the
 * button that opened it when it closes.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  danger,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** The button that closes the dialog doing nothing (when "Cancel" would be ambiguous). */
  dismissLabel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onCancel(); }} className="dialog">
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <div className="actions">
        <button type="button" className="button button-secondary" onClick={onCancel} autoFocus>
          {dismissLabel}
        </button>
        <button type="button" className={`button ${danger ? 'button-danger' : 'button-primary'}`} onClick={onConfirm} disabled={busy}>
          {busy ? 'Working…' : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
