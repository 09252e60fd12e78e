import { useEffect, useState } from 'react';
import { ApiError } from '../api/api';
import { Loading, Notice, PageHeading } from '../components/ui';
import { Link } from '../lib/router';
import { securityApi } from '../api/security-api';

/** One request per token, even when an effect runs twice (React's strict mode): a second would find the link used. */
const attempts = new Map<string, Promise<{ email: string }>>();
function verifyOnce(token: string): Promise<{ email: string }> {
  let attempt = attempts.get(token);
  if (!attempt) {
    attempt = securityApi.verifyEmail(token);
    attempts.set(token, attempt);
  }
  return attempt;
}

/** The link of the sign-up verification mail: verifies at once (the token is the proof, signed in or not). */
export function VerifyEmailPage({ token, onVerified }: { token: string; onVerified: () => void }) {
  const [state, setState] = useState<{ status: 'loading' } | { status: 'done'; email: string } | { status: 'error'; message: string }>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    verifyOnce(token).then(
      (result) => {
        if (!live) return;
        setState({ status: 'done', email: result.email });
        onVerified();
      },
      (e: unknown) => live && setState({ status: 'error', message: e instanceof ApiError ? e.detail.replace(/^token: /, '') : 'Something went wrong. Please try again.' }),
    );
    return () => {
      live = false;
    };
  }, [token, onVerified]);
  return (
    <main id="main" className="auth">
      <PageHeading title="Verify your email address">Verify your email address</PageHeading>
      {state.status === 'loading' && <Loading label="Verifying…" />}
      {state.status === 'done' && (
        <Notice tone="success" title="Email address verified">
          <p>
            <strong>{state.email}</strong> is verified. You can create API keys now.
          </p>
        </Notice>
      )}
      {state.status === 'error' && (
        <Notice tone="warning" title="This link does not work">
          <p>{state.message}</p>
          <p>Sign in and use “Send the mail again” for a new link.</p>
        </Notice>
      )}
      <p className="center">
        <Link to="/">Go to the dashboard</Link>
      </p>
    </main>
  );
}
