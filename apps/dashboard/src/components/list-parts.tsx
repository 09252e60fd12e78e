import { ReactNode, useId } from 'react';

/**
 * What the list pages (generations, models, usage) share: a filter select, a table's header row and
 * the Newer/Older pager of cursor pages.
 */

/** A labelled filter select: "any" (the empty value) first, then each option by its label. */
export function FilterSelect<T extends string>({
  label,
  any,
  value,
  options,
  labels,
  onChange,
}: {
  label: string;
  any: string;
  value: string;
  options: readonly T[];
  labels: Record<T, string>;
  onChange: (value: string) => void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{any}</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {labels[option]}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A table's header row; the `numeric` columns are aligned as numbers. */
export function HeadRow({ columns, numeric = [] }: { columns: readonly string[]; numeric?: readonly string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col" className={numeric.includes(column) ? 'num' : undefined}>
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** Newer/Older buttons between cursor pages, each shown only when there is such a page. */
export function Pager({ label, onNewer, onOlder }: { label: string; onNewer?: () => void; onOlder?: () => void }) {
  return (
    <nav className="pager" aria-label={label}>
      {onNewer && (
        <button type="button" className="button button-secondary" onClick={onNewer}>
          ← Newer
        </button>
      )}
      {onOlder && (
        <button type="button" className="button button-secondary" onClick={onOlder}>
          Older →
        </button>
      )}
    </nav>
  );
}

/** A number's cell: aligned as a number; `label` names its column where the table stacks on narrow screens. */
export function NumCell({ label, tone, children }: { label: string; tone?: string; children: ReactNode }) {
  return (
    <td data-label={label} className={tone ? `num ${tone}` : 'num'}>
      {children}
    </td>
  );
}
