import { FormEvent, useState } from 'react';
import { ApiError, ApiKey, dashboardApi, KeyCaps } from '../api';
import { Field, FormError } from './ui';

/** A cap field: empty is no cap; otherwise a whole number of credits, at least 1. */
function parseCapInput(value: string): { cap: number | null } | { error: string } {
  const text = value.trim();
  if (text === '') return { cap: null };
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 2_147_483_647) return { error: 'Enter a whole number of credits, at least 1, or leave it empty for no cap.' };
  return { cap: Number(text) };
}

const capText = (cap: number | null, spent: number, period: 'day' | 'month') => {
  const when = period === 'day' ? 'today' : 'this month';
  return cap === null ? `no ${period === 'day' ? 'daily' : 'monthly'} cap (${spent} spent ${when})` : `${spent} of ${cap} credits ${when}`;
};

/**
 * The key's spending caps per UTC day and month: a generation whose credits would pass one is refused
 * (402 spending_cap_reached) until the period resets.
 */
export function SpendingCaps({ apiKey, onChanged }: { apiKey: ApiKey; onChanged: (caps: KeyCaps) => void }) {
  const caps = apiKey.caps;
  const [editing, setEditing] = useState(false);
  const [perDay, setPerDay] = useState('');
  const [perMonth, setPerMonth] = useState('');
  const [errors, setErrors] = useState<{ per_day?: string; per_month?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const day = parseCapInput(perDay);
    const month = parseCapInput(perMonth);
    const local = { per_day: 'error' in day ? day.error : undefined, per_month: 'error' in month ? month.error : undefined };
    setErrors(local);
    if ('error' in day || 'error' in month) return;
    setBusy(true);
    try {
      const view = await dashboardApi.setKeyCaps(apiKey.id, { per_day: day.cap, per_month: month.cap });
      setEditing(false);
      onChanged(view);
    } catch (err) {
      if (err instanceof ApiError && (err.field === 'per_day' || err.field === 'per_month')) setErrors({ [err.field]: err.detail });
      else setErrors({ form: err instanceof ApiError ? err.detail : 'The caps could not be saved.' });
    } finally {
      setBusy(false);
    }
  };

  if (!editing) {
    return (
      <div className="kv">
        <span className="kv-label">Spending caps (UTC)</span>
        <span className={caps && (caps.per_day !== null || caps.per_month !== null) ? 'small' : 'muted small'} data-testid={`caps-${apiKey.id}`}>
          {caps ? `${capText(caps.per_day, caps.spent_today, 'day')}; ${capText(caps.per_month, caps.spent_this_month, 'month')}` : 'None'}
        </span>
        <button
          type="button"
          className="button button-link"
          onClick={() => {
            setPerDay(caps?.per_day?.toString() ?? '');
            setPerMonth(caps?.per_month?.toString() ?? '');
            setErrors({});
            setEditing(true);
          }}
          aria-label={`Set the spending caps of ${apiKey.name}`}
        >
          {caps && (caps.per_day !== null || caps.per_month !== null) ? 'Edit' : 'Set'}
        </button>
      </div>
    );
  }
  return (
    <form className="inline-form" onSubmit={(e) => void save(e)} noValidate aria-label={`Spending caps of ${apiKey.name}`}>
      <Field
        id={`cap-day-${apiKey.id}`}
        label="Credits per day (UTC)"
        hint="A generation that would pass it is refused until midnight UTC. Empty: no daily cap."
        inputMode="numeric"
        value={perDay}
        onChange={(e) => setPerDay(e.target.value)}
        error={errors.per_day}
        autoFocus
      />
      <Field
        id={`cap-month-${apiKey.id}`}
        label="Credits per month (UTC)"
        hint="Counted from the first of the month. Empty: no monthly cap."
        inputMode="numeric"
        value={perMonth}
        onChange={(e) => setPerMonth(e.target.value)}
        error={errors.per_month}
      />
      <FormError message={errors.form ?? null} />
      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save caps'}
        </button>
        <button type="button" className="button button-link" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
