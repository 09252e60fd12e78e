import { ReactNode, useState } from 'react';
import { AsyncState } from '../lib/use-async';
import { HeadRow, Pager } from './list-parts';
import { EmptyState, Loading, LoadError } from './ui';

/** The cursor of the page shown, and the cursors of the pages before it (to go back with Newer). */
export function useCursorPages() {
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [previous, setPrevious] = useState<Array<string | undefined>>([]);
  return {
    cursor,
    /** Back to the first page (the filters changed). */
    reset: () => {
      setPrevious([]);
      setCursor(undefined);
    },
    newer:
      previous.length > 0
        ? () => {
            setCursor(previous[previous.length - 1]);
            setPrevious(previous.slice(0, -1));
          }
        : undefined,
    older: (next: string | null | undefined) =>
      next
        ? () => {
            setPrevious([...previous, cursor]);
            setCursor(next);
          }
        : undefined,
  };
}

export type CursorPages = ReturnType<typeof useCursorPages>;

/**
 * A cursor page of rows (the audit log, the credit ledger): loading, its error with a retry, an empty
 * state, or the table and its Newer/Older pager.
 */
export function PagedTable<T>({
  state,
  reload,
  pages,
  emptyTitle,
  className,
  caption,
  columns,
  numeric,
  pagerLabel,
  row,
}: {
  state: AsyncState<{ data: T[]; next_cursor?: string | null }>;
  reload: () => void;
  pages: CursorPages;
  emptyTitle: string;
  className: string;
  caption: string;
  columns: readonly string[];
  numeric?: readonly string[];
  pagerLabel: string;
  row: (item: T) => ReactNode;
}) {
  if (state.status === 'loading') return <Loading />;
  if (state.status === 'error') return <LoadError message={state.error.detail} onRetry={reload} />;
  if (state.data.data.length === 0) return <EmptyState title={emptyTitle} />;
  return (
    <>
      <div className="table-wrap">
        <table className={`table responsive ${className}`}>
          <caption className="visually-hidden">{caption}</caption>
          <HeadRow columns={columns} numeric={numeric} />
          <tbody>{state.data.data.map(row)}</tbody>
        </table>
      </div>
      <Pager label={pagerLabel} onNewer={pages.newer} onOlder={pages.older(state.data.next_cursor)} />
    </>
  );
}
