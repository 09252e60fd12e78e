import { useState } from 'react';
import { dashboardApi, GENERATION_TYPES, JOB_STATUSES } from '../api/api';
import { GenerationsTable } from '../components/generations-table';
import { FilterSelect, Pager } from '../components/list-parts';
import { EmptyState, Loading, LoadError, PageHeading } from '../components/ui';
import { STATUS_LABELS, TYPE_LABELS } from '../lib/format';
import { Link, navigate, useLocation } from '../lib/router';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 20;

function toQuery(params: { status?: string; type?: string; cursor?: string }): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) search.set(name, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** All generations, newest first, filtered by status and type, a page at a time (cursor paging). */
export function GenerationsPage() {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const type = query.get('type') ?? '';
  const cursor = query.get('cursor') ?? '';
  // Cursors of the pages before this one, to go back (the URL keeps only the current page's).
  const [previous, setPrevious] = useState<string[]>([]);
  const [state, reload] = useAsync(
    () => dashboardApi.generations({ status, type, cursor: cursor || undefined, limit: PAGE_SIZE }),
    [status, type, cursor],
  );

  const filter = (next: { status?: string; type?: string }) => {
    setPrevious([]);
    navigate(`/generations${toQuery({ status, type, ...next })}`);
  };
  const filtered = status !== '' || type !== '';

  return (
    <main id="main">
      <PageHeading title="Generations">Generations</PageHeading>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter generations">
        <FilterSelect label="Status" any="Any status" value={status} options={JOB_STATUSES} labels={STATUS_LABELS} onChange={(s) => filter({ status: s })} />
        <FilterSelect label="Type" any="Any type" value={type} options={GENERATION_TYPES} labels={TYPE_LABELS} onChange={(t) => filter({ type: t })} />
        {filtered && (
          <button type="button" className="button button-secondary" onClick={() => filter({ status: '', type: '' })}>
            Clear filters
          </button>
        )}
      </form>

      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' &&
        (state.data.data.length === 0 ? (
          filtered ? (
            <EmptyState title="No generations match these filters">
              <p>Try another status or type, or clear the filters.</p>
            </EmptyState>
          ) : cursor ? (
            <EmptyState title="No more generations">
              <p>
                <Link to="/generations">Back to the newest</Link>
              </p>
            </EmptyState>
          ) : (
            <EmptyState title="No generations yet">
              <p>
                Generations you submit with <code>POST /api/v1/generate</code> appear here. You need an{' '}
                <Link to="/settings/keys">API key</Link> first.
              </p>
            </EmptyState>
          )
        ) : (
          <>
            <GenerationsTable generations={state.data.data} caption="Generations, newest first" />
            <Pager
              label="Pages"
              onNewer={
                cursor || previous.length > 0
                  ? () => {
                      const back = previous.slice(0, -1);
                      const target = previous.length > 0 ? previous[previous.length - 1] : '';
                      setPrevious(back);
                      navigate(`/generations${toQuery({ status, type, cursor: target })}`);
                    }
                  : undefined
              }
              onOlder={
                state.data.next_cursor
                  ? () => {
                      setPrevious([...previous, cursor]);
                      navigate(`/generations${toQuery({ status, type, cursor: state.data.next_cursor ?? '' })}`);
                    }
                  : undefined
              }
            />
          </>
        ))}
    </main>
  );
}
