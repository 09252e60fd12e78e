import { AnchorHTMLAttributes, MouseEvent, useSyncExternalStore } from 'react';

/** A tiny History API router: the app lives under /dashboard, paths below are the app's own. */
export const BASE = '/dashboard';
const CHANGE = 'dashboard:navigate';

function subscribe(callback: () => void): () => void {
  window.addEventListener('popstate', callback);
  window.addEventListener(CHANGE, callback);
  return () => {
    window.removeEventListener('popstate', callback);
    window.removeEventListener(CHANGE, callback);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** The current app path ("/generations") and query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  let path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) : url.pathname;
  if (path === '') path = '/';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { path, query: url.searchParams };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + (to === '/' ? '/' : to);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** An ordinary link (open in new tab, copy address all work) that navigates in-app on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={BASE + (to === '/' ? '/' : to)} onClick={handle} {...rest} />;
}
