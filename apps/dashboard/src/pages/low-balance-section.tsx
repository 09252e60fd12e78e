import { useState } from 'react';
import { dashboardApi, LowBalance } from '../api/api';
import { DeliveryItem } from '../components/delivery-item';
import { InlineEditor } from '../components/inline-editor';
import { Field, Loading, LoadError } from '../components/ui';
import { useAsync } from '../lib/use-async';

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
  const parsed = parseThresholdInput(value);

  const save = async () => {
    const saved = await dashboardApi.setLowBalance('threshold' in parsed ? parsed.threshold : null);
    onSaved(saved);
    return saved.threshold === null ? 'Low-balance alerts are off.' : `You will be alerted when available credits fall below ${saved.threshold.toLocaleString('en-US')}.`;
  };

  return (
    <InlineEditor
      variant="card"
      label="Low-balance alert"
      fields={['threshold'] as const}
      failure="The threshold could not be saved."
      validate={() => ({ threshold: 'error' in parsed ? parsed.error : undefined })}
      onSave={save}
      submitLabel="Save threshold"
    >
      {(errors) => (
        <>
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
            error={errors.threshold}
          />
        </>
      )}
    </InlineEditor>
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
