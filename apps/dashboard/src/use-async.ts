import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export type AsyncState<T> = { status: 'loading' } | { status: 'error'; error: ApiError } | { status: 'ready'; data: T };

/** Loads data for a page; reload() fetches again. A late answer for an older request is dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): [AsyncState<T>, () => void, (data: T) => void] {
  const [state, setState] = useState<AsyncState<T>>({ status: 'loading' });
  const generation = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const stableLoad = useCallback(load, deps);
  const run = useCallback(() => {
    const mine = ++generation.current;
    stableLoad().then(
      (data) => mine === generation.current && setState({ status: 'ready', data }),
      (error: unknown) =>
        mine === generation.current &&
        setState({ status: 'error', error: error instanceof ApiError ? error : new ApiError(0, 'internal_error', String(error)) }),
    );
  }, [stableLoad]);
  useEffect(() => {
    setState({ status: 'loading' });
    run();
  }, [run]);
  const set = useCallback((data: T) => setState({ status: 'ready', data }), []);
  return [state, run, set];
}
