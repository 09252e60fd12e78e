import { dashboardApi } from '../api/api';
import { GenerationsTable } from '../components/generations-table';
import { EmptyState, Loading, LoadError, PageHeading } from '../components/ui';
import { credits, formatNumber, planLabel } from '../lib/format';
import { Link } from '../lib/router';
import { useAsync } from '../lib/use-async';

export function OverviewPage() {
  const [state, reload] = useAsync(() => dashboardApi.overview(), []);
  return (
    <main id="main">
      <PageHeading title="Overview">Overview</PageHeading>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && (
        <>
          <section className="cards" aria-label="Account summary">
            <div className="card stat">
              <h2 className="stat-label">Plan</h2>
              <p className="stat-value">{planLabel(state.data.plan)}</p>
              <ul className="plain small muted">
                <li>{formatNumber(state.data.limits.requests_per_minute)} requests per minute</li>
                <li>
                  {formatNumber(state.data.limits.parallel_tasks)} parallel task{state.data.limits.parallel_tasks === 1 ? '' : 's'}
                </li>
              </ul>
            </div>
            <div className="card stat">
              <h2 className="stat-label">Available credits</h2>
              <p className="stat-value" data-testid="available-credits">
                {formatNumber(state.data.credits.available)}
              </p>
              <p className="small muted">
                {state.data.credits.held > 0
                  ? `${credits(state.data.credits.held)} held for generations in progress`
                  : 'None held for generations in progress'}
              </p>
            </div>
            <div className="card stat">
              <h2 className="stat-label">API keys</h2>
              <p className="stat-value">{formatNumber(state.data.active_keys)}</p>
              <p className="small">
                <Link to="/settings/keys">{state.data.active_keys === 0 ? 'Create your first key' : 'Manage keys'}</Link>
              </p>
            </div>
          </section>

          <section aria-labelledby="recent-heading" className="section">
            <div className="section-head">
              <h2 id="recent-heading">Recent generations</h2>
              {state.data.recent_generations.length > 0 && <Link to="/generations">View all</Link>}
            </div>
            {state.data.recent_generations.length === 0 ? (
              <EmptyState title="No generations yet">
                {state.data.active_keys === 0 ? (
                  <p>
                    <Link to="/settings/keys">Create an API key</Link>, then send your first request:
                  </p>
                ) : (
                  <p>
                    Try a model in the <Link to="/playground">playground</Link>, or send your first request with one of your API keys:
                  </p>
                )}
                <pre className="code" tabIndex={0}>
                  {`curl ${window.location.origin}/api/v1/generate \\
  -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model":"pixel-flux-1","prompt":"a lighthouse at dusk","type":"TEXT_TO_IMAGE"}'`}
                </pre>
              </EmptyState>
            ) : (
              <GenerationsTable generations={state.data.recent_generations} caption="Recent generations" />
            )}
          </section>
        </>
      )}
    </main>
  );
}
