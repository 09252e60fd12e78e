import { dashboardApi, Purchase } from '../api/api';
import { formatMoney } from '../lib/format';
import { useAsync } from '../lib/use-async';

/** The credit packs bought, with what was refunded of each and its receipt. */
export function Purchases({ purchases }: { purchases: Purchase[] }) {
  return (
    <section className="section" aria-labelledby="purchases-heading">
      <h2 id="purchases-heading">Purchases</h2>
      {purchases.length === 0 ? (
        <p>No purchases yet.</p>
      ) : (
        <div className="table-wrap">
        <table className="table compact">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">Pack</th>
              <th scope="col">Credits</th>
              <th scope="col">Paid</th>
              <th scope="col">Receipt</th>
            </tr>
          </thead>
          <tbody>
            {purchases.map((p) => (
              <tr key={p.checkout_session_id}>
                <td>{new Date(p.created_at).toLocaleDateString('en-US')}</td>
                <td>{p.pack_id}</td>
                <td>
                  {p.credits.toLocaleString('en-US')}
                  {p.refunded_credits > 0 && ` (${p.refunded_credits.toLocaleString('en-US')} refunded)`}
                </td>
                <td>{formatMoney(p.amount, p.currency)}</td>
                <td>
                  {p.receipt_url ? (
                    <a href={p.receipt_url} target="_blank" rel="noreferrer">
                      Receipt<span className="visually-hidden"> (opens in a new tab)</span>
                    </a>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}

/** The account's invoices at Stripe (subscriptions, top-ups), with their hosted pages. */
export function Invoices() {
  const [state] = useAsync(() => dashboardApi.billingInvoices(), []);
  if (state.status !== 'ready' || state.data.data.length === 0) return null;
  return (
    <section className="section" aria-labelledby="invoices-heading">
      <h2 id="invoices-heading">Invoices</h2>
      <ul>
        {state.data.data.map((invoice) => (
          <li key={invoice.id}>
            {invoice.hosted_invoice_url ? (
              <a href={invoice.hosted_invoice_url} target="_blank" rel="noreferrer">
                {invoice.number ?? invoice.id}
              </a>
            ) : (
              (invoice.number ?? invoice.id)
            )}{' '}
            {new Date(invoice.created).toLocaleDateString('en-US')}: {formatMoney(invoice.amount_due, invoice.currency)} ({invoice.status ?? 'draft'})
          </li>
        ))}
      </ul>
    </section>
  );
}
