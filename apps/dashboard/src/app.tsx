import { useCallback, useEffect, useState } from 'react';
import { ApiError, dashboardApi, onUnauthorized, Session, setCsrfToken } from './api';
import { EmptyState, Loading, LoadError, PageHeading } from './components/ui';
import { ApiKeysPage } from './pages/api-keys-page';
import { SignInPage, SignUpPage } from './pages/auth-pages';
import { GenerationPage } from './pages/generation-page';
import { GenerationsPage } from './pages/generations-page';
import { OverviewPage } from './pages/overview-page';
import { Link, navigate, useLocation } from './router';

const NAV = [
  { to: '/', label: 'Overview', match: (path: string) => path === '/' },
  { to: '/generations', label: 'Generations', match: (path: string) => path.startsWith('/generations') },
  { to: '/settings/keys', label: 'Settings', match: (path: string) => path.startsWith('/settings') },
];

function NotFound() {
  return (
    <main id="main">
      <PageHeading title="Page not found">Page not found</PageHeading>
      <EmptyState title="There is no page at this address.">
        <p>
          <Link to="/">Go to the overview</Link>
        </p>
      </EmptyState>
    </main>
  );
}

function Page({ path }: { path: string }) {
  if (path === '/') return <OverviewPage />;
  if (path === '/generations') return <GenerationsPage />;
  const generation = /^\/generations\/([^/]+)$/.exec(path);
  if (generation) return <GenerationPage id={decodeURIComponent(generation[1])} />;
  if (path === '/settings/keys') return <ApiKeysPage />;
  return <NotFound />;
}

function Shell({ session, onSignOut, path }: { session: Session; onSignOut: () => void; path: string }) {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            Generation Service
          </Link>
          <nav aria-label="Main" className="mainnav">
            {NAV.map((item) => (
              <Link key={item.to} to={item.to} aria-current={item.match(path) ? 'page' : undefined}>
                {item.label}
              </Link>
            ))}
          </nav>
          <div className="account">
            <span className="account-email" title={session.user?.email}>
              {session.user?.email}
            </span>
            <button type="button" className="button button-link" onClick={onSignOut}>
              Sign out
            </button>
          </div>
        </div>
      </header>
      <div className="container">
        <Page path={path} />
      </div>
    </>
  );
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [returnTo, setReturnTo] = useState<string | null>(null);
  const { path, query } = useLocation();

  const accept = useCallback((next: Session) => {
    setCsrfToken(next.csrf_token);
    setSession(next);
  }, []);

  const refresh = useCallback(() => {
    setError(null);
    dashboardApi.session().then(accept, (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'internal_error', String(e))));
  }, [accept]);

  useEffect(() => {
    refresh();
    onUnauthorized(refresh);
  }, [refresh]);

  const signedIn = session?.signed_in === true;
  const authPage = path === '/sign-in' || path === '/sign-up';
  useEffect(() => {
    if (!session) return;
    if (signedIn && authPage) navigate(returnTo ?? '/', { replace: true });
    if (!signedIn && !authPage) {
      setReturnTo(path + (query.toString() ? `?${query.toString()}` : ''));
      navigate('/sign-in', { replace: true });
    }
  }, [session, signedIn, authPage, path, query, returnTo]);

  if (error) {
    return (
      <div className="container">
        <main id="main">
          <PageHeading title="Dashboard unavailable">Dashboard unavailable</PageHeading>
          <LoadError message={error.detail} onRetry={refresh} />
        </main>
      </div>
    );
  }
  if (!session) {
    return (
      <div className="container">
        <Loading />
      </div>
    );
  }
  if (!signedIn) {
    return (
      <div className="container narrow">
        <p className="brand brand-auth">Generation Service</p>
        {path === '/sign-up' ? <SignUpPage onSignedIn={accept} terms={session.sign_up} /> : <SignInPage onSignedIn={accept} />}
      </div>
    );
  }
  if (authPage) return null;
  const signOut = () => {
    dashboardApi.signOut().finally(() => {
      setReturnTo(null);
      refresh();
    });
  };
  return <Shell session={session} onSignOut={signOut} path={path} />;
}
