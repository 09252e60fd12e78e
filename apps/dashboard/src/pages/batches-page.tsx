import { dashboardApi } from '../api/api';
import { BATCH_COLUMNS, BatchRow } from '../components/batches-table';
import { PagedTable, useCursorPages } from '../components/paged-table';
import { PageHeading } from '../components/ui';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 20;

/** The account's batches, newest first, a page at a time (cursor paging): status, progress and credits. */
export function BatchesPage() {
  const pages = useCursorPages();
  const [state, reload] = useAsync(() => dashboardApi.batches(pages.cursor, PAGE_SIZE), [pages.cursor]);
  return (
    <main id="main">
      <PageHeading title="Batches">Batches</PageHeading>
      <p className="muted">
        Files of generate requests run for you at a lower priority, created with <code>POST /api/v1/batches</code>. Each line holds no
        credits until it runs.
      </p>
      <PagedTable
        state={state}
        reload={reload}
        pages={pages}
        emptyTitle={pages.cursor ? 'No more batches' : 'No batches yet'}
        className="batches-table"
        caption="Batches, newest first"
        columns={BATCH_COLUMNS}
        numeric={['Credits charged']}
        pagerLabel="Batch pages"
        row={(batch) => <BatchRow key={batch.id} batch={batch} />}
      />
    </main>
  );
}
