import { useEffect } from 'react';
import { dashboardApi } from '../api/api';
import { CancelGeneration } from '../components/cancel-generation';
import { GenerationDeliveries } from '../components/generation-deliveries';
import { GenerationFields } from '../components/generation-fields';
import { Preview } from '../components/preview';
import { EmptyState, Loading, LoadError, PageHeading, StatusBadge } from '../components/ui';
import { shortId, TYPE_LABELS } from '../lib/format';
import { useCan } from '../lib/role';
import { Link } from '../lib/router';
import { useAsync } from '../lib/use-async';

const POLL_MS = 2000;

export function GenerationPage({ id }: { id: string }) {
  const [state, reload] = useAsync(() => dashboardApi.generation(id), [id]);
  const can = useCan();
  // Refresh by itself while the job or one of its deliveries is still under way.
  const pending =
    state.status === 'ready' &&
    (state.data.generation.status === 'queued' ||
      state.data.generation.status === 'processing' ||
      state.data.deliveries.data.some((d) => d.status === 'pending'));
  useEffect(() => {
    if (!pending) return;
    const timer = window.setTimeout(reload, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [pending, state, reload]);

  if (state.status === 'loading') {
    return (
      <main id="main">
        <PageHeading title="Generation">Generation</PageHeading>
        <Loading />
      </main>
    );
  }
  if (state.status === 'error') {
    return (
      <main id="main">
        <PageHeading title="Generation not found">{state.error.status === 404 ? 'Generation not found' : 'Generation'}</PageHeading>
        {state.error.status === 404 ? (
          <EmptyState title="There is no generation with this id in your account.">
            <p>
              <Link to="/generations">Back to generations</Link>
            </p>
          </EmptyState>
        ) : (
          <LoadError message={state.error.detail} onRetry={reload} />
        )}
      </main>
    );
  }
  const g = state.data.generation;
  return (
    <main id="main">
      <p className="breadcrumb">
        <Link to="/generations">← Generations</Link>
      </p>
      <div className="title-row">
        <PageHeading title={`Generation ${shortId(g.id)}`}>
          {TYPE_LABELS[g.type]} generation <span className="mono muted">{shortId(g.id)}</span>
        </PageHeading>
        <StatusBadge status={g.status} />
      </div>
      {(g.status === 'queued' || g.status === 'processing') && can('developer') && <CancelGeneration id={g.id} onCanceled={reload} />}
      <div className="detail-grid">
        <section aria-labelledby="output-heading">
          <h2 id="output-heading">Output</h2>
          <Preview generation={g} />
        </section>
        <section aria-labelledby="fields-heading">
          <h2 id="fields-heading">Details</h2>
          <GenerationFields generation={g} />
        </section>
      </div>
      <section aria-labelledby="deliveries-heading" className="section">
        <h2 id="deliveries-heading">Webhook deliveries</h2>
        <GenerationDeliveries
          detail={state.data}
          onRedeliver={async () => {
            const delivery = await dashboardApi.redeliver(g.id);
            reload();
            return delivery.id;
          }}
        />
      </section>
    </main>
  );
}
