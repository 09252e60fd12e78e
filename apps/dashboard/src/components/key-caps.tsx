import { useState } from 'react';
import { ApiKey, dashboardApi, KeyCaps } from '../api/api';
import { InlineEditor, InlineValue } from './inline-editor';
import { Field } from './ui';

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

  if (!editing) {
    const set = caps && (caps.per_day !== null || caps.per_month !== null);
    return (
      <InlineValue
        label="Spending caps (UTC)"
        action={set ? 'Edit' : 'Set'}
        actionLabel={`Set the spending caps of ${apiKey.name}`}
        onEdit={() => {
          setPerDay(caps?.per_day?.toString() ?? '');
          setPerMonth(caps?.per_month?.toString() ?? '');
          setEditing(true);
        }}
      >
        <span className={set ? 'small' : 'muted small'} data-testid={`caps-${apiKey.id}`}>
          {caps ? `${capText(caps.per_day, caps.spent_today, 'day')}; ${capText(caps.per_month, caps.spent_this_month, 'month')}` : 'None'}
        </span>
      </InlineValue>
    );
  }
  const day = parseCapInput(perDay);
  const month = parseCapInput(perMonth);
  return (
    <InlineEditor
      label={`Spending caps of ${apiKey.name}`}
      fields={['per_day', 'per_month'] as const}
      failure="The caps could not be saved."
      validate={() => ({ per_day: 'error' in day ? day.error : undefined, per_month: 'error' in month ? month.error : undefined })}
      onSave={async () => {
        const view = await dashboardApi.setKeyCaps(apiKey.id, { per_day: 'cap' in day ? day.cap : null, per_month: 'cap' in month ? month.cap : null });
        setEditing(false);
        onChanged(view);
      }}
      submitLabel="Save caps"
      onCancel={() => setEditing(false)}
    >
      {(errors) => (
        <>
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
        </>
      )}
    </InlineEditor>
  );
}
