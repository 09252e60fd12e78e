import { useCallback, useEffect, useState } from 'react';
import { ApiError, dashboardApi, onUnauthorized, roleAtLeast, Session, setCsrfToken } from './api/api';
import { EmptyState, Loading, LoadError, PageHeading } from './components/ui';
import { AccountPage } from './pages/account-page';
import { AuditPage } from './pages/audit-page';
import { BatchPage } from './pages/batch-page';
import { BatchesPage } from './pages/batches-page';
import { BillingPage } from './pages/billing-page';
import { ApiKeysPage } from './pages/api-keys-page';
import { SignInPage, SignUpPage, ForgotPasswordPage, ResetPasswordPage } from './pages/auth-pages';
import { GenerationPage } from './pages/generation-page';
import { GenerationsPage } from './pages/generations-page';
import { InvitationPage } from './pages/invitation-page';
import { MembersPage } from './pages/members-page';
import { ModelsPage } from './pages/models-page';
import { OverviewPage } from './pages/overview-page';
import { PlaygroundPage } from './pages/playground-page';
import { UsagePage } from './pages/usage-page';
import { VerifyEmailPage } from './pages/verify-email-page';
import { TwoFactorSettings } from './components/two-factor-settings';
import { VerifyEmailNotice } from './components/verify-email-notice';
import { RoleContext, useCan } from './lib/role';
import { Link, navigate, useLocation } from './lib/router';

const NAV = [
  { to: '/', label: 'Overview', match: (path: string) => path === '/' },
  { to: '/playground', label: 'Playground', match: (path: string) => path === '/playground', needs: 'developer' as const },
  { to: '/models', label: 'Models', match: (path: string) => path === '/models' },
  { to: '/usage', label: 'Usage', match: (path: string) => path === '/usage' },
  { to: '/generations', label: 'Generations', match: (path: string) => path.startsWith('/generations') },
  { to: '/batches', label: 'Batches', match: (path: string) => path.startsWith('/batches') },
  { to: '/billing', label: 'Billing', match: (path: string) => path === '/billing', needs: 'admin' as const },
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

/** The API's reference (Swagger UI over the OpenAPI document), served by the gateway. */
const API_REFERENCE = '/api/v1/docs';

/** A page the member's role does not open (the server refuses its calls too). */
function NotForRole({ title, needs }: { title: string; needs: string }) {
  return (
    <main id="main">
      <PageHeading title={title}>{title}</PageHeading>
      <EmptyState title={`This page is for ${needs} of this account.`}>
        <p>Ask an owner or admin of the account if you need it.</p>
      </EmptyState>
    </main>
  );
}

function Page({ path, session, onSessionChanged }: { path: string; session: Session; onSessionChanged: () => void }) {
  const can = useCan();
  if (path === '/') return <OverviewPage />;
  if (path === '/playground') return can('developer') ? <PlaygroundPage /> : <NotForRole title="Playground" needs="developers, admins and owners" />;
  if (path === '/models') return <ModelsPage />;
  if (path === '/usage') return <UsagePage />;
  if (path === '/billing') return can('admin') ? <BillingPage /> : <NotForRole title="Billing" needs="owners and admins" />;
  if (path === '/settings') return <ApiKeysPage />;
  if (path === '/settings/account') return <AccountPage session={session} onSessionChanged={onSessionChanged} />;
  if (path === '/settings/audit') return can('admin') ? <AuditPage /> : <NotForRole title="Audit log" needs="owners and admins" />;
  if (path === '/settings/members') return <MembersPage onSessionChanged={onSessionChanged} />;
  if (path === '/generations') return <GenerationsPage />;
  const generation = /^\/generations\/([^/]+)$/.exec(path);
  if (generation) return <GenerationPage id={decodeURIComponent(generation[1])} />;
  if (path === '/batches') return <BatchesPage />;
  const batch = /^\/batches\/([^/]+)$/.exec(path);
  if (batch) return <BatchPage id={decodeURIComponent(batch[1])} />;
  if (path === '/settings/keys') return <ApiKeysPage />;
  return <NotFound />;
}

/** The account picker: shown when the user belongs to more than one account; switching reloads the app on the other. */
function AccountPicker({ session, onSwitched }: { session: Session; onSwitched: (next: Session) => void }) {
  const accounts = session.accounts ?? [];
  if (accounts.length < 2) return <span className="account-name">{session.account?.name}</span>;
  return (
    <label className="account-picker">
      <span className="visually-hidden">Account</span>
      <select
        value={session.account?.id}
        onChange={(e) => void dashboardApi.switchAccount(e.target.value).then((next) => {
          onSwitched(next);
          navigate('/');
        })}
      >
        {accounts.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name} ({a.role})
          </option>
        ))}
      </select>
    </label>
  );
}

function Shell({ session, onSignOut, onSession, onSessionChanged, path }: { session: Session; onSignOut: () => void; onSession: (next: Session) => void; onSessionChanged: () => void; path: string }) {
  return (
    <RoleContext.Provider value={session.account?.role ?? 'viewer'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <Link to="/" className="brand">
            Generation Service
          </Link>
          <nav aria-label="Main" className="mainnav">
            {NAV.filter((item) => roleAtLeast(session.account?.role ?? 'viewer', item.needs ?? 'viewer')).map((item) => (
              <Link key={item.to} to={item.to} aria-current={item.match(path) ? 'page' : undefined}>
                {item.label}
              </Link>
            ))}
            <a className="api-reference" href={API_REFERENCE} target="_blank" rel="noreferrer">
              API reference <span aria-hidden="true">↗</span>
              <span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </nav>
          <div className="account">
            <AccountPicker session={session} onSwitched={onSession} />
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
        {session.user && !session.user.email_verified && <VerifyEmailNotice email={session.user.email} />}
        {session.user?.two_factor.required && !session.user.two_factor.enabled ? (
          // The account requires a second factor: its set-up comes before any other page (the server refuses the rest).
          <main id="main">
            <PageHeading title="Set up two-factor sign-in">Set up two-factor sign-in</PageHeading>
            <TwoFactorSettings session={session} onChanged={onSessionChanged} />
          </main>
        ) : (
          <Page path={path} session={session} onSessionChanged={onSessionChanged} />
        )}
      </div>
    </RoleContext.Provider>
  );
}

/** Where to go after signing in: a path of this app, nothing else. */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') ? value : '/';
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const { path, query } = useLocation();

  const accept = useCallback((next: Session) => {
    setCsrfToken(next.csrf_token);
    setError(null);
    setSession(next);
  }, []);

  const load = useCallback(
    () =>
      dashboardApi.session().then(accept, (e: unknown) => setError(e instanceof ApiError ? e : new ApiError(0, 'internal_error', String(e)))),
    [accept],
  );

  useEffect(() => {
    void load();
    onUnauthorized(() => void load());
  }, [load]);
  const reloadSession = useCallback(() => void load(), [load]);

  const signedIn = session?.signed_in === true;
  const authPage = path === '/sign-in' || path === '/sign-up';
  // Reachable signed in or not: a reset link opened in a browser that is still signed in works too.
  const passwordPage = path === '/forgot-password' || path === '/reset-password' || path === '/verify-email';
  // An invitation link works signed in (accept as this user) or signed out (sign in, or choose a password).
  const invitationPage = path === '/invitation';
  const search = query.toString();
  useEffect(() => {
    if (!session) return;
    if (signedIn && authPage) navigate(safeNext(new URLSearchParams(search).get('next')), { replace: true });
    if (!signedIn && !authPage && !passwordPage && !invitationPage) {
      const here = path + (search ? `?${search}` : '');
      navigate(here === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
    }
  }, [session, signedIn, authPage, passwordPage, invitationPage, path, search]);

  if (error) {
    return (
      <div className="container">
        <main id="main">
          <PageHeading title="Dashboard unavailable">Dashboard unavailable</PageHeading>
          <LoadError message={error.detail} onRetry={() => void load()} />
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
  if (passwordPage) {
    return (
      <div className="container narrow">
        <p className="brand brand-auth">Generation Service</p>
        {path === '/verify-email' ? (
          <VerifyEmailPage token={query.get('token') ?? ''} onVerified={reloadSession} />
        ) : path === '/forgot-password' ? (
          <ForgotPasswordPage />
        ) : (
          <ResetPasswordPage token={query.get('token') ?? ''} onDone={() => void load().then(() => navigate('/sign-in', { replace: true }))} />
        )}
      </div>
    );
  }
  if (invitationPage) {
    const joined = (next: Session) => {
      accept(next);
      navigate('/', { replace: true });
    };
    const signOutHere = () => void dashboardApi.signOut().finally(() => void load());
    return (
      <div className="container narrow">
        <p className="brand brand-auth">Generation Service</p>
        <InvitationPage token={query.get('token') ?? ''} session={session} onSession={joined} onSignOut={signOutHere} />
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
    void dashboardApi.signOut().finally(() => void load());
  };
  return <Shell session={session} onSignOut={signOut} onSession={accept} onSessionChanged={() => void load()} path={path} />;
}
