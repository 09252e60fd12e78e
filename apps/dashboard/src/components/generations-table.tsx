import type { Generation } from '../api/api';
import { formatDate, shortId, TYPE_LABELS } from '../lib/format';
import { Link } from '../lib/router';
import { StatusBadge } from './ui';

/** Generations as a table on wide screens and as stacked cards on narrow ones (same markup). */
export function GenerationsTable({ generations, caption }: { generations: Generation[]; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="table responsive">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Generation</th>
            <th scope="col">Status</th>
            <th scope="col">Type</th>
            <th scope="col">Model</th>
            <th scope="col" className="num">
              Credits
            </th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {generations.map((g) => (
            <tr key={g.id}>
              <td data-label="Generation">
                <Link to={`/generations/${g.id}`} className="row-link">
                  <span className="prompt">{g.prompt}</span>
                  <span className="mono muted small">{shortId(g.id)}</span>
                </Link>
              </td>
              <td data-label="Status">
                <StatusBadge status={g.status} />
              </td>
              <td data-label="Type">{TYPE_LABELS[g.type]}</td>
              <td data-label="Model">
                {/* The value is code; the label (shown before it on narrow screens) is not. */}
                <span className="mono small">{g.model}</span>
              </td>
              <td data-label="Credits" className="num">
                {g.credits_charged}
              </td>
              <td data-label="Created">{formatDate(g.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
