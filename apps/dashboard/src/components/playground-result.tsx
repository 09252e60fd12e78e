import { useEffect } from 'react';
import { dashboardApi, Generation } from '../api/api';
import { between, credits, formatDuration } from '../lib/format';
import { Link } from '../lib/router';
import { Preview } from './preview';
import { StatusBadge } from './ui';

const POLL_MS = 1000;

export interface Run {
  keyId: string;
  generation: Generation;
}

/** The result of the last submit: watched (polled) until it is final, with what it cost. */
export function PlaygroundResult({ run, onUpdate }: { run: Run; onUpdate: (g: Generation) => void }) {
  const g = run.generation;
  const final = g.status === 'completed' || g.status === 'failed';
  useEffect(() => {
    if (final) return;
    const timer = window.setTimeout(() => {
      dashboardApi.generation(g.id).then(
        (detail) => onUpdate(detail.generation),
        () => onUpdate({ ...g }), // try again on the next tick
      );
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [g, final, onUpdate]);
  return (
    <section className="card result" aria-labelledby="result-heading" aria-busy={!final}>
      <div className="section-head">
        <h2 id="result-heading">Result</h2>
        <StatusBadge status={g.status} />
      </div>
      <Preview generation={g} />
      <dl className="result-facts small">
        <div>
          <dt>Credits charged</dt>
          <dd data-testid="credits-charged">{final ? credits(g.credits_charged) : 'when it completes'}</dd>
        </div>
        <div>
          <dt>Took</dt>
          <dd>{final ? formatDuration(between(g.created_at, g.completed_at)) : 'under way…'}</dd>
        </div>
        <div>
          <dt>Generation</dt>
          <dd>
            <Link to={`/generations/${g.id}`} className="mono">
              {g.id.slice(0, 8)}
            </Link>
          </dd>
        </div>
      </dl>
      <p className="visually-hidden" role="status">
        {final ? `Generation ${g.status}.` : ''}
      </p>
    </section>
  );
}
