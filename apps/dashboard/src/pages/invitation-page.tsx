import { FormEvent, useState } from 'react';
import { ApiError, dashboardApi, InvitationPreview, Session } from '../api/api';
import { Field, FormError, LoadError, Loading, PageHeading } from '../components/ui';
import { formatDate } from '../lib/format';
import { useAsync } from '../lib/use-async';

const MIN_PASSWORD = 10;
const article = (role: string) => (role === 'owner' || role === 'admin' ? `an ${role}` : `a ${role}`);

function messageOf(error: unknown): { field: string | null; detail: string } {
  return error instanceof ApiError ? { field: error.field, detail: error.detail } : { field: null, detail: 'Something went wrong. Please try again.' };
}

/** Signed out: accept by signing in (the address has a user) or by choosing a password (it has none). */
function AcceptForm({ token, invitation, onSession }: { token: string; invitation: InvitationPreview; onSession: (s: Session) => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<{ field: string | null; detail: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const existing = invitation.has_user;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!existing && password.length < MIN_PASSWORD) {
      setError({ field: 'password', detail: `Use at least ${MIN_PASSWORD} characters.` });
      document.getElementById('password')?.focus();
      return;
    }
    setBusy(true);
    try {
      onSession(
        existing
          ? await dashboardApi.acceptInvitationSignIn(token, invitation.email, password)
          : await dashboardApi.acceptInvitationSignUp(token, password),
      );
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };

  return (
    <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate>
      <Field id="email" label="Email" type="email" autoComplete="username" value={invitation.email} readOnly />
      <Field
        id="password"
        label={existing ? 'Password' : 'Choose a password'}
        type="password"
        autoComplete={existing ? 'current-password' : 'new-password'}
        hint={existing ? 'Sign in to accept.' : `At least ${MIN_PASSWORD} characters. A long passphrase is best.`}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={error?.field === 'password' ? error.detail : undefined}
        required
      />
      <FormError message={error && error.field !== 'password' ? error.detail : null} />
      <button type="submit" className="button button-primary button-wide" disabled={busy}>
        {busy ? 'Joining…' : existing ? 'Sign in and join' : 'Create your user and join'}
      </button>
    </form>
  );
}

/** Signed in: accept with one click if the invitation is for this user's address. */
function SignedInAccept({ token, invitation, session, onSession, onSignOut }: { token: string; invitation: InvitationPreview; session: Session; onSession: (s: Session) => void; onSignOut: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const mine = session.user?.email.toLowerCase() === invitation.email.toLowerCase();
  if (!mine) {
    return (
      <div className="card auth-card">
        <p>
          This invitation is for <strong>{invitation.email}</strong>, and you are signed in as <strong>{session.user?.email}</strong>.
        </p>
        <button type="button" className="button button-secondary button-wide" onClick={onSignOut}>
          Sign out to accept it
        </button>
      </div>
    );
  }
  const accept = async () => {
    setBusy(true);
    try {
      onSession(await dashboardApi.acceptInvitation(token));
    } catch (err) {
      setError(messageOf(err).detail);
      setBusy(false);
    }
  };
  return (
    <div className="card auth-card">
      <FormError message={error} />
      <button type="button" className="button button-primary button-wide" disabled={busy} onClick={() => void accept()}>
        {busy ? 'Joining…' : `Join ${invitation.account.name}`}
      </button>
    </div>
  );
}

/** The page an invitation mail links to (/invitation?token=…), signed in or not. */
export function InvitationPage({ token, session, onSession, onSignOut }: { token: string; session: Session; onSession: (s: Session) => void; onSignOut: () => void }) {
  const [state] = useAsync(() => dashboardApi.previewInvitation(token), [token]);
  return (
    <main id="main" className="auth">
      <PageHeading title="Invitation">Join an account</PageHeading>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} />}
      {state.status === 'ready' && (
        <>
          <p className="lead">
            {state.data.invited_by ?? 'Someone'} invited <strong>{state.data.email}</strong> to join <strong>{state.data.account.name}</strong> as{' '}
            {article(state.data.role)}. The invitation works once, until {formatDate(state.data.expires_at)}.
          </p>
          {session.signed_in ? (
            <SignedInAccept token={token} invitation={state.data} session={session} onSession={onSession} onSignOut={onSignOut} />
          ) : (
            <AcceptForm token={token} invitation={state.data} onSession={onSession} />
          )}
        </>
      )}
    </main>
  );
}
