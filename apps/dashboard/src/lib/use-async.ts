import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/api';

export type AsyncState<T> = { status: 'loading' } | { status: 'error'; error: ApiError } | { status: 'ready'; data: T };

type Result<T> = { depsKey: string; state: AsyncState<T> };

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'internal_error', String(error));
}

/**
 * Loads data for a page whenever `deps` change. reload() fetches again but keeps showing the current
 * data until the new answer arrives (no flash of "Loading" while polling). An answer for an older
 * request is dropped.
 */
export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): [AsyncState<T>, () => void, (data: T) => void] {
  const depsKey = JSON.stringify(deps);
  const [version, setVersion] = useState(0);
  const [result, setResult] = useState<Result<T> | null>(null);
  const latestLoad = useRef(load);
  useEffect(() => {
    latestLoad.current = load;
  });
  useEffect(() => {
    let current = true;
    latestLoad.current().then(
      (data) => current && setResult({ depsKey, state: { status: 'ready', data } }),
      (error: unknown) => current && setResult({ depsKey, state: { status: 'error', error: toApiError(error) } }),
    );
    return () => {
      current = false;
    };
  }, [depsKey, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const set = useCallback((data: T) => setResult({ depsKey, state: { status: 'ready', data } }), [depsKey]);
  const state: AsyncState<T> = result && result.depsKey === depsKey ? result.state : { status: 'loading' };
  return [state, reload, set];
}
