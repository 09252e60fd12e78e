import { useState } from 'react';
import { ApiError, dashboardApi } from '../api/api';
import { ConfirmDialog } from './ui';

/** Cancel for a batch in progress: asks first, then the page shows the batch canceling or canceled. */
export function CancelBatch({ id, onCanceled }: { id: string; onCanceled: () => void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await dashboardApi.cancelBatch(id);
    } catch (e) {
      setError(e instanceof ApiError ? e.detail : 'The batch could not be canceled.');
    } finally {
      setOpen(false);
      setBusy(false);
      // Either way the batch may have moved on (finished meanwhile): show it as it is now.
      onCanceled();
    }
  };
  return (
    <>
      <div className="actions section-actions">
        <button type="button" className="button button-danger" onClick={() => setOpen(true)}>
          Cancel batch
        </button>
        <span className="hint">Lines not started are canceled and never charged. Lines already running finish.</span>
      </div>
      {error && (
        <p role="alert" className="form-error">
          {error}
        </p>
      )}
      <ConfirmDialog
        open={open}
        title="Cancel this batch?"
        confirmLabel="Cancel batch"
        dismissLabel="Keep it running"
        danger
        busy={busy}
        onConfirm={() => void cancel()}
        onCancel={() => setOpen(false)}
      >
        <p>
          Lines that have not started are canceled and never charged; lines queued are canceled and refunded. Lines already running finish
          and are charged. The batch's webhook reports it as canceled.
        </p>
      </ConfirmDialog>
    </>
  );
}
