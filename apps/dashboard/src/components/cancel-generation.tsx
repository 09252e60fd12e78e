import { useState } from 'react';
import { ApiError, dashboardApi } from '../api/api';
import { ConfirmDialog } from './ui';

/** Cancel for a queued or running generation: asks first, then shows the refunded record. */
export function CancelGeneration({ id, onCanceled }: { id: string; onCanceled: () => void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await dashboardApi.cancelGeneration(id);
      setOpen(false);
      onCanceled();
    } catch (e) {
      setOpen(false);
      setError(e instanceof ApiError ? e.detail : 'The generation could not be canceled.');
      onCanceled();
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <div className="actions section-actions">
        <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
          Cancel generation
        </button>
        <span className="hint">Stops it and refunds its credits. Its webhook reports it as failed.</span>
      </div>
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <ConfirmDialog
        open={open}
        title="Cancel this generation?"
        confirmLabel="Cancel generation"
        dismissLabel="Keep it running"
        danger
        busy={busy}
        onConfirm={() => void cancel()}
        onCancel={() => setOpen(false)}
      >
        <p>It stops now, wherever it is, and its credits are refunded. If it finishes first, it stays completed and is charged.</p>
      </ConfirmDialog>
    </>
  );
}
