import { FormEvent, useState } from 'react';
import { ApiError, Session } from '../api/api';
import { useCan } from '../lib/role';
import { securityApi, TwoFactorStatus } from '../api/security-api';
import { useAsync } from '../lib/use-async';
import { Field, FormError, Loading, LoadError, Notice, SecretReveal } from './ui';

const detail = (e: unknown) => (e instanceof ApiError ? e.detail.replace(/^(code|password): /, '') : 'Something went wrong. Please try again.');

/** Ten codes, shown once, to copy or print. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <Notice tone="warning" title="Your recovery codes">
      <p>Each works once, instead of a code from your app. Keep them somewhere safe: they are not shown again.</p>
      <ul className="plain recovery-codes mono" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
    </Notice>
  );
}

/** One code field and a button: confirming, turning off and renewing all ask for a code; turning on or off, the password too. */
function CodeForm({
  label,
  action,
  busyLabel,
  withPassword = false,
  onCode,
}: {
  label: string;
  action: string;
  busyLabel: string;
  withPassword?: boolean;
  onCode: (code: string, password: string) => Promise<void>;
}) {
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onCode(code.trim(), password);
      setCode('');
      setPassword('');
    } catch (e) {
      setError(detail(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="inline-form" onSubmit={(e) => void submit(e)} noValidate>
      {withPassword && <Field label="Your password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />}
      <Field label={label} autoComplete="one-time-code" value={code} onChange={(e) => setCode(e.target.value)} error={error} />
      <FormError message={null} />
      <button type="submit" className="button" disabled={busy || code.trim() === '' || (withPassword && password === '')}>
        {busy ? busyLabel : action}
      </button>
    </form>
  );
}

/**
 * Settings, Account: two-factor sign-in. Off: set it up (the secret as text and as an otpauth URI,
 * confirmed with a code, then the recovery codes). On: new recovery codes, turn it off, and for
 * owners whether every member must use it.
 */
export function TwoFactorSettings({ session, onChanged }: { session: Session; onChanged: () => void }) {
  const [state, reload] = useAsync<TwoFactorStatus>(() => securityApi.twoFactor(), []);
  const [secret, setSecret] = useState<{ secret: string; otpauth_uri: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const owner = useCan()('owner');

  const begin = async () => {
    setError(null);
    try {
      setSecret(await securityApi.beginTwoFactor());
    } catch (e) {
      setError(detail(e));
    }
  };
  const done = (next: string[] | null) => {
    setCodes(next);
    setSecret(null);
    reload();
    onChanged();
  };
  const require = async (required: boolean) => {
    setError(null);
    try {
      await securityApi.requireTwoFactor(required);
      reload();
      onChanged();
    } catch (e) {
      setError(detail(e));
    }
  };

  return (
    <section className="card" aria-labelledby="two-factor-heading">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {codes && <RecoveryCodes codes={codes} />}
      <FormError message={error} />
      {state.status === 'ready' && !state.data.enabled && (
        <>
          {state.data.required && (
            <Notice tone="warning" title="Required by your account">
              <p>Set up two-factor sign-in to use the dashboard.</p>
            </Notice>
          )}
          <p>After your password, sign-in will ask for a code from an authenticator app (Google Authenticator, 1Password, …).</p>
          {!secret ? (
            <button type="button" className="button button-primary" onClick={() => void begin()}>
              Set up two-factor sign-in
            </button>
          ) : (
            <>
              <p>Add this account to your app: paste the link, or type the key. Then enter the code it shows.</p>
              <SecretReveal label="Setup key" value={secret.secret} />
              <SecretReveal label="otpauth link" value={secret.otpauth_uri} />
              <CodeForm
                label="Code from your app"
                action="Turn on"
                busyLabel="Checking…"
                withPassword
                onCode={async (code, password) => done((await securityApi.confirmTwoFactor(code, password)).recovery_codes)}
              />
            </>
          )}
        </>
      )}
      {state.status === 'ready' && state.data.enabled && (
        <>
          <p>
            <strong>On.</strong> {session.user?.email} signs in with a password and a code. Recovery codes left: {state.data.recovery_codes_left}.
          </p>
          <CodeForm label="Code, for new recovery codes" action="Make new recovery codes" busyLabel="Making…" onCode={async (code) => done((await securityApi.renewRecoveryCodes(code)).recovery_codes)} />
          {!state.data.required && (
            <CodeForm label="Code, to turn it off" action="Turn off" busyLabel="Turning off…" withPassword onCode={async (code, password) => {
              await securityApi.disableTwoFactor(code, password);
              done(null);
            }} />
          )}
        </>
      )}
      {state.status === 'ready' && owner && (
        <label className="check">
          <input type="checkbox" checked={state.data.required} disabled={!state.data.enabled && !state.data.required} onChange={(e) => void require(e.target.checked)} />
          Require two-factor sign-in for every member of this account
        </label>
      )}
    </section>
  );
}
