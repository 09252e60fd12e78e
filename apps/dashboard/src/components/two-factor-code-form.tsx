import { FormEvent, useState } from 'react';
import { ApiError, Session } from '../api/api';
import { securityApi } from '../api/security-api';
import { Field, FormError } from './ui';

/** Sign-in's second step: the code from the authenticator app, or one of the recovery codes. */
export function TwoFactorCodeForm({ challenge, onSignedIn, onRestart }: { challenge: string; onSignedIn: (session: Session) => void; onRestart: () => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [expired, setExpired] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (code.trim() === '') {
      setError('Enter the code from your authenticator app.');
      return;
    }
    setBusy(true);
    try {
      onSignedIn(await securityApi.signInWithCode(challenge, code.trim()));
    } catch (e) {
      setBusy(false);
      // 401: the challenge ended (too slow, or too many wrong codes): the password again.
      if (e instanceof ApiError && e.status === 401) setExpired(true);
      setError(e instanceof ApiError ? e.detail : 'Something went wrong. Please try again.');
    }
  };

  return (
    <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate>
      <h2>Two-factor sign-in</h2>
      <Field
        id="code"
        label="Code"
        inputMode="text"
        autoComplete="one-time-code"
        autoFocus
        hint="The 6-digit code your authenticator app shows now, or one of your recovery codes."
        value={code}
        onChange={(e) => setCode(e.target.value)}
        required
      />
      <FormError message={error} />
      {expired ? (
        <button type="button" className="button button-primary button-wide" onClick={onRestart}>
          Sign in again
        </button>
      ) : (
        <button type="submit" className="button button-primary button-wide" disabled={busy}>
          {busy ? 'Checking…' : 'Verify and sign in'}
        </button>
      )}
    </form>
  );
}
