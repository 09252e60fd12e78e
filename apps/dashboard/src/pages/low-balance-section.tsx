import { FormEvent, useState } from 'react';
import { ApiError, dashboardApi, LowBalance } from '../api';
import { DeliveryItem } from '../components/delivery-item';
import { Field, FormError, Loading, LoadError } from '../components/ui';
import { useAsync } from '../use-async';

const MAX = 2_147_483_647;

/** Checks the field as the server will: empty or a whole number from 0 (0 and empty: off). */
export function parseThresholdInput(value: string): { threshold: number | null } | { error: string } {
  const text = value.trim();
  if (text === '' || text === '0') return { threshold: null };
  if (!/^\d+$/.test(text) || Number(text) > MAX) return { error: `Enter a whole number of credits from 0 to ${MAX.toLocaleString('en-US')}, or leave it empty for no alerts.` };
  return { threshold: Number(text) };
}

/** The threshold form, mounted once the setting is loaded (its field starts from the saved value). */
function ThresholdForm({ setting, onSaved }: { setting: LowBalance; onSaved: (saved: Omit<LowBalance, 'deliveries'>) => void }) {
  const [value, setValue] = useState(setting.threshold === null ? '' : String(setting.threshold));
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDone(null);
    setFormError(null);
    const parsed = parseThresholdInput(value);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const saved = await dashboardApi.setLowBalance(parsed.threshold);
      onSaved(saved);
      setDone(saved.threshold === null ? 'Low-balance alerts are off.' : `You will be alerted when available credits fall below ${saved.threshold.toLocaleString('en-US')}.`);
    } catch (err) {
      if (err instanceof ApiError && err.field === 'threshold') setError(err.detail);
      else setFormError(err instanceof ApiError ? err.detail : 'The threshold could not be saved.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card narrow-card" onSubmit={(e) => void submit(e)} noValidate aria-label="Low-balance alert">
      <p className="hint">
        When the available credits fall below this number, the account&apos;s owners and admins get an email, and every default webhook URL of
        its API keys gets an <code>account.low_balance</code> event. Once per crossing: the next alert comes after the balance is back at or
        above it.
      </p>
      <Field
        id="low-balance-threshold"
        label="Alert below (credits)"
        inputMode="numeric"
        autoComplete="off"
        placeholder="No alert"
        hint={`Available now: ${setting.available.toLocaleString('en-US')} credits${setting.below ? ' (below the threshold: alerted)' : ''}. Empty or 0 turns alerts off.`}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        error={error ?? undefined}
      />
      <FormError message={formError} />
      {done && (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? 'Saving…' : 'Save threshold'}
      </button>
    </form>
  );
}

/**
 * Settings, Account: the low-balance alert (owners and admins; for other roles the server answers
 * 403 and the section is not shown).
 */
export function LowBalanceSection() {
  const [state, reload, replace] = useAsync(() => dashboardApi.lowBalance(), []);
  if (state.status === 'error' && state.error.status === 403) return null;
  const loaded = state.status === 'ready' ? state.data : null;
  return (
    <section className="section section-spaced" aria-labelledby="low-balance-heading">
      <h2 id="low-balance-heading">Low-balance alert</h2>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {loaded && (
        <>
          <ThresholdForm setting={loaded} onSaved={(saved) => replace({ ...loaded, ...saved })} />
          {loaded.deliveries.length > 0 && (
            <details className="deliveries-fold">
              <summary className="small">Latest low-balance events sent ({loaded.deliveries.length})</summary>
              <ol className="deliveries">
                {loaded.deliveries.map((d) => (
                  <DeliveryItem key={d.id} delivery={d} />
                ))}
              </ol>
            </details>
          )}
        </>
      )}
    </section>
  );
}
