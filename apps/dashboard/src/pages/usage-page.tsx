import { dashboardApi, LEDGER_CSV_URL, LedgerEntry, LedgerKind, UsageReply } from '../api/api';
import { HeadRow, NumCell } from '../components/list-parts';
import { PagedTable, useCursorPages } from '../components/paged-table';
import { EmptyState, Loading, LoadError, PageHeading } from '../components/ui';
import { credits, formatDate, formatDay, formatNumber, shortId, signed } from '../lib/format';
import { Link } from '../lib/router';
import { useAsync } from '../lib/use-async';

const KIND_LABELS: Record<LedgerKind, string> = {
  grant: 'Grant',
  adjustment: 'Adjustment',
  hold: 'Hold',
  capture: 'Charge',
  release: 'Refund',
};

const KIND_HINTS: Record<LedgerKind, string> = {
  grant: 'Credits added to the account',
  adjustment: 'Credits removed by the operator',
  hold: 'Reserved when the generation was submitted',
  capture: 'The held credits, charged when the generation completed',
  release: 'The held credits, returned when the generation failed',
};

/** Models drawn in their own colour; the rest share "Other". */
const SERIES = 5;

function SpendingChart({ usage }: { usage: UsageReply }) {
  const named = usage.models.slice(0, SERIES).map((m) => m.model);
  const series = [...named, ...(usage.models.length > SERIES ? ['Other'] : [])];
  const max = Math.max(1, ...usage.days.map((d) => d.credits));
  const slot = 10;
  const height = 100;
  const summary =
    usage.total.credits === 0
      ? `No credits spent from ${formatDay(usage.from)} to ${formatDay(usage.to)}.`
      : `${credits(usage.total.credits)} spent from ${formatDay(usage.from)} to ${formatDay(usage.to)}; most on one day: ${credits(max)}.`;
  return (
    <figure className="chart" aria-labelledby="chart-caption">
      <div className="chart-plot">
        <span className="chart-max small muted" aria-hidden="true">
          {formatNumber(max)}
        </span>
        <svg viewBox={`0 0 ${usage.days.length * slot} ${height}`} preserveAspectRatio="none" role="img" aria-label={summary} data-testid="spending-chart">
          <line x1="0" y1={height - 0.5} x2={usage.days.length * slot} y2={height - 0.5} className="chart-axis" />
          {usage.days.map((day, i) => {
            let y = height;
            const parts = series.map((name, s) => {
              const value =
                name === 'Other'
                  ? Object.entries(day.by_model).reduce((sum, [model, c]) => (named.includes(model) ? sum : sum + c), 0)
                  : (day.by_model[name] ?? 0);
              const h = (value / max) * (height - 4);
              y -= h;
              return value > 0 ? <rect key={name} x={i * slot + 1.5} y={y} width={slot - 3} height={h} className={`series-${s}`} /> : null;
            });
            return (
              <g key={day.date}>
                <title>{`${formatDay(day.date)}: ${credits(day.credits)}, ${day.generations} generation${day.generations === 1 ? '' : 's'}`}</title>
                <rect x={i * slot} y={0} width={slot} height={height} className="chart-hit" />
                {parts}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="chart-days small muted" aria-hidden="true">
        <span>{formatDay(usage.from)}</span>
        <span>{formatDay(usage.days[Math.floor(usage.days.length / 2)]?.date ?? usage.from)}</span>
        <span>{formatDay(usage.to)}</span>
      </div>
      <figcaption id="chart-caption">
        <span className="visually-hidden">Credits spent per day (UTC), by model. </span>
        {series.length > 0 ? (
          <ul className="legend plain small">
            {series.map((name, s) => (
              <li key={name}>
                <span className={`swatch series-${s}`} aria-hidden="true" />
                <span className={name === 'Other' ? '' : 'mono'}>{name}</span>
              </li>
            ))}
          </ul>
        ) : (
          <span className="small muted">{summary}</span>
        )}
      </figcaption>
      <details className="chart-table">
        <summary className="small">Show as a table</summary>
        <table className="table compact">
          <caption className="visually-hidden">Credits spent per day</caption>
          <HeadRow columns={['Day (UTC)', 'Credits', 'Generations']} numeric={['Credits', 'Generations']} />
          <tbody>
            {usage.days
              .filter((d) => d.credits > 0)
              .map((d) => (
                <tr key={d.date}>
                  <td>{formatDay(d.date)}</td>
                  <td className="num">{formatNumber(d.credits)}</td>
                  <td className="num">{formatNumber(d.generations)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function Summary() {
  const [state, reload] = useAsync(() => dashboardApi.usage(30), []);
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error') return <LoadError message={state.error.detail} onRetry={reload} />;
  const usage = state.data;
  return (
    <>
      <section className="cards" aria-label="Last 30 days">
        <div className="card stat">
          <h2 className="stat-label">Spent in the last 30 days</h2>
          <p className="stat-value" data-testid="spent-30-days">
            {formatNumber(usage.total.credits)}
          </p>
          <p className="small muted">credits, {formatDay(usage.from)} to {formatDay(usage.to)} (UTC)</p>
        </div>
        <div className="card stat">
          <h2 className="stat-label">Generations charged</h2>
          <p className="stat-value">{formatNumber(usage.total.generations)}</p>
          <p className="small muted">
            {usage.total.refunds === 0 ? 'No refunds' : `${formatNumber(usage.total.refunds)} failed and refunded`}
          </p>
        </div>
      </section>
      <section className="section" aria-labelledby="per-day-heading">
        <h2 id="per-day-heading">Spending per day</h2>
        <div className="card">
          <SpendingChart usage={usage} />
        </div>
      </section>
      <section className="section" aria-labelledby="per-model-heading">
        <h2 id="per-model-heading">Spending per model</h2>
        {usage.models.length === 0 ? (
          <EmptyState title="Nothing spent in the last 30 days">
            <p>
              Try a model in the <Link to="/playground">playground</Link>.
            </p>
          </EmptyState>
        ) : (
          <div className="table-wrap">
            <table className="table responsive">
              <caption className="visually-hidden">Credits spent per model in the last 30 days</caption>
              <HeadRow columns={['Model', 'Generations', 'Credits', 'Share']} numeric={['Generations', 'Credits', 'Share']} />
              <tbody>
                {usage.models.map((m) => (
                  <tr key={m.model}>
                    <td data-label="Model">
                      <span className="mono small">{m.model}</span>
                    </td>
                    <NumCell label="Generations">{formatNumber(m.generations)}</NumCell>
                    <NumCell label="Credits">{formatNumber(m.credits)}</NumCell>
                    <NumCell label="Share">{Math.round((m.credits / Math.max(1, usage.total.credits)) * 100)}%</NumCell>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function LedgerRow({ entry }: { entry: LedgerEntry }) {
  return (
    <tr data-kind={entry.kind}>
      <td data-label="When">{formatDate(entry.created_at)}</td>
      <td data-label="Entry">
        <span className={`badge badge-ledger-${entry.kind}`} title={KIND_HINTS[entry.kind]}>
          {KIND_LABELS[entry.kind]}
        </span>
        {entry.note && <span className="small muted"> {entry.note}</span>}
      </td>
      <NumCell label="Available" tone={entry.amount < 0 ? 'text-danger' : entry.amount > 0 ? 'text-success' : undefined}>
        {signed(entry.amount)}
      </NumCell>
      <NumCell label="Held" tone="muted">
        {signed(entry.held_change)}
      </NumCell>
      <NumCell label="Balance after">{formatNumber(entry.balance_after)}</NumCell>
      <td data-label="Generation id">
        {entry.generation_id ? (
          <Link to={`/generations/${entry.generation_id}`} className="mono small">
            {shortId(entry.generation_id)}
          </Link>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td data-label="Model">{entry.model ? <span className="mono small">{entry.model}</span> : <span className="muted">—</span>}</td>
    </tr>
  );
}

function Ledger() {
  const pages = useCursorPages();
  const [state, reload] = useAsync(() => dashboardApi.ledger(pages.cursor), [pages.cursor]);
  return (
    <section className="section" aria-labelledby="ledger-heading">
      <div className="section-head">
        <h2 id="ledger-heading">Credit ledger</h2>
        <a className="button button-secondary" href={LEDGER_CSV_URL} download>
          Export CSV
        </a>
      </div>
      <p className="hint">
        Every change to your credits, newest first. A generation first holds its price, then is charged (capture) or refunded (release). The same
        list: <code>GET /api/v1/credits/ledger</code>.
      </p>
      <PagedTable
        state={state}
        reload={reload}
        pages={pages}
        emptyTitle="No entries"
        className="ledger"
        caption="Credit ledger, newest first"
        columns={['When', 'Entry', 'Available', 'Held', 'Balance after', 'Generation', 'Model']}
        numeric={['Available', 'Held', 'Balance after']}
        pagerLabel="Ledger pages"
        row={(entry) => <LedgerRow key={entry.id} entry={entry} />}
      />
    </section>
  );
}

/** Where the credits went: spending per day and model over 30 days, and the ledger with a CSV export. */
export function UsagePage() {
  return (
    <main id="main">
      <PageHeading title="Usage">Usage</PageHeading>
      <Summary />
      <Ledger />
    </main>
  );
}
