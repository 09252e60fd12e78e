import type { Delivery, DeliveryAttempt } from '../api/api';
import { between, formatDate, formatDuration, formatTime } from '../lib/format';

const DELIVERY_STATUS: Record<Delivery['status'], string> = { pending: 'In progress', succeeded: 'Delivered', failed: 'Failed' };

/** "Delivered · HTTP 200", "Failed · HTTP 500: the receiver did not answer…": the status code said once. */
export function attemptResult(attempt: DeliveryAttempt): string {
  if (attempt.outcome === 'in_flight') return 'Sending…';
  const outcome = attempt.outcome === 'succeeded' ? 'Delivered' : 'Failed';
  const status = attempt.status_code ? `HTTP ${attempt.status_code}` : null;
  if (!attempt.error) return status ? `${outcome} · ${status}` : outcome;
  // The error of a bad status already starts with it ("HTTP 500: ..."); others may name it inside.
  if (!status || attempt.error.includes(status)) return `${outcome} · ${attempt.error}`;
  return `${outcome} · ${status} · ${attempt.error}`;
}

/** One delivery (its id, destination, state) and a table of its attempts with their times and durations. */
export function DeliveryItem({ delivery }: { delivery: Delivery }) {
  const took = between(delivery.created_at, delivery.finished_at);
  return (
    <li className="card delivery" data-delivery-id={delivery.id}>
      <div className="delivery-head">
        <span>
          <span className="mono small">{delivery.id}</span>
          {delivery.redelivery_of && <span className="muted small"> · redelivery</span>}
          {delivery.test && <span className="muted small"> · test event</span>}
        </span>
        <span className={`badge badge-${delivery.status}`}>{DELIVERY_STATUS[delivery.status]}</span>
      </div>
      <p className="small muted delivery-meta">
        <span className="mono break">{delivery.url}</span> · {delivery.event} · {formatDate(delivery.created_at)} · attempt {delivery.attempts_made} of{' '}
        {delivery.max_attempts}
        {delivery.next_attempt_at && delivery.status === 'pending' ? ` · next at ${formatTime(delivery.next_attempt_at)}` : ''}
        {took !== null ? ` · finished after ${formatDuration(took)}` : ''}
      </p>
      {delivery.attempts.length > 0 && (
        <table className="table compact attempts">
          <caption className="visually-hidden">Attempts of delivery {delivery.id}</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">When</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Took
              </th>
            </tr>
          </thead>
          <tbody>
            {delivery.attempts.map((a) => (
              <tr key={a.number}>
                <td>{a.number}</td>
                <td>{formatTime(a.started_at)}</td>
                <td className={a.outcome === 'failed' ? 'text-danger' : undefined}>{attemptResult(a)}</td>
                <td className="num">{a.duration_ms != null ? formatDuration(a.duration_ms) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
