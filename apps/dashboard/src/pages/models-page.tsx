import { useState } from 'react';
import { dashboardApi, GENERATION_TYPES, Model, ModelInfo } from '../api/api';
import { FilterSelect, HeadRow, NumCell } from '../components/list-parts';
import { isDemo, ProviderBadge } from '../components/model-label';
import { EmptyState, Loading, LoadError, Notice, PageHeading } from '../components/ui';
import { credits, formatNumber, planLabel, TYPE_LABELS } from '../lib/format';
import { Link } from '../lib/router';
import { useAsync } from '../lib/use-async';

function Availability({ model, available }: { model: ModelInfo; available: number }) {
  if (!model.available) {
    return (
      <span className="availability">
        <span className="badge badge-failed">Unavailable</span> <span className="small">{model.unavailable_reason}</span>
      </span>
    );
  }
  const needed = Math.max(model.credits, model.minimum_credits);
  return (
    <span className="availability">
      <span className="badge badge-completed">Available</span>{' '}
      {available < needed && <span className="small text-warning">You need {credits(needed)} available (you have {formatNumber(available)}).</span>}
    </span>
  );
}

/** A price that follows inputs: the inputs it is multiplied by (`num_outputs`), or null for a fixed price. */
function perInput(model: Model): string | null {
  return model.price_multipliers && model.price_multipliers.length > 0 ? model.price_multipliers.join(' × ') : null;
}

/** The catalogue: what each model makes, costs and needs, and whether this account can use it (and why not). */
export function ModelsPage() {
  const [state, reload] = useAsync(() => dashboardApi.models(), []);
  const [type, setType] = useState('');
  const shown = state.status === 'ready' ? state.data.data.filter((m) => !type || m.type === type) : [];
  return (
    <main id="main">
      <PageHeading title="Models">Models</PageHeading>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && (
        <>
          <p className="lead">
            What you can generate and for how much. Your account is on the <strong>{planLabel(state.data.plan)}</strong> plan with{' '}
            <strong>{credits(state.data.credits.available)}</strong> available. A model's price is charged when the generation completes; a failed one
            costs nothing.
          </p>
          {state.data.data.some(isDemo) && (
            <Notice title="Models marked Demo are not AI models">
              <p>
                They are built-in engines that draw shapes, tones or a robotic voice from the prompt, for trying the API without a provider. Whatever the
                prompt says, a demo image shows coloured shapes.
              </p>
            </Notice>
          )}
          <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter models">
            <FilterSelect label="Type" any="Any type" value={type} options={GENERATION_TYPES} labels={TYPE_LABELS} onChange={setType} />
          </form>
          {shown.length === 0 ? (
            <EmptyState title="No model of this type in the catalogue" />
          ) : (
            <div className="table-wrap">
              <table className="table responsive models">
                <caption className="visually-hidden">Models, with price and availability</caption>
                <HeadRow columns={['Model', 'Type', 'Price', 'Minimum', 'Plan', 'Answer', 'Availability']} numeric={['Price', 'Minimum']} />
                <tbody>
                  {shown.map((m) => (
                    <tr key={m.id} data-model={m.id}>
                      <td data-label="Model">
                        <span className="model-name">
                          <span className="model-title">
                            <strong>{m.name}</strong> <ProviderBadge model={m} />
                          </span>
                          <span className="mono small muted">{m.id}</span>
                          {m.description && <span className="small muted model-description">{m.description}</span>}
                        </span>
                      </td>
                      <td data-label="Type">{TYPE_LABELS[m.type]}</td>
                      <NumCell label="Price">
                        {credits(m.credits)}
                        {perInput(m) && <span className="small muted price-per"> × {perInput(m)}</span>}
                      </NumCell>
                      <NumCell label="Minimum">{formatNumber(m.minimum_credits)}</NumCell>
                      <td data-label="Plan">{planLabel(m.min_plan)}+</td>
                      <td data-label="Answer">{m.synchronous ? 'Sync' : 'Async'}</td>
                      <td data-label="Availability">
                        <Availability model={m} available={state.data.credits.available} />
                        {m.available && (
                          <>
                            {' '}
                            <Link to={`/playground?model=${encodeURIComponent(m.id)}`} className="small" aria-label={`Try ${m.name} in the playground`}>
                              Try it
                            </Link>
                          </>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="hint section">
            <strong>Price</strong>: credits charged on success; &ldquo;× num_outputs&rdquo; means per output (the price times that input&rsquo;s value). <strong>Minimum</strong>: credits you must have available to submit.{' '}
            <strong>Sync</strong>: <code>POST /api/v1/generate</code> answers with the finished result; <strong>Async</strong>: it answers at once and
            the result arrives by polling or webhook. The same list: <code>GET /api/v1/models</code>.
          </p>
        </>
      )}
    </main>
  );
}
