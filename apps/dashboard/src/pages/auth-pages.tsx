import { FormEvent, useState } from 'react';
import { ApiError, dashboardApi, Session } from '../api/api';
import { TwoFactorCodeForm } from '../components/two-factor-code-form';
import { Field, FormError, PageHeading } from '../components/ui';
import { isChallenge, securityApi } from '../api/security-api';
import { formatNumber } from '../lib/format';
import { Link } from '../lib/router';

const MIN_PASSWORD = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

type Errors = { email?: string; password?: string; form?: string };

function serverErrors(error: unknown): Errors {
  if (!(error instanceof ApiError)) return { form: 'Something went wrong. Please try again.' };
  if (error.field === 'email' || error.field === 'password') return { [error.field]: error.detail };
  return { form: error.detail };
}

/** Sign in and sign up share one form: email, password, and errors beside each field. */
function CredentialsForm({
  mode,
  onSignedIn,
  signUpCredits,
}: {
  mode: 'sign-in' | 'sign-up';
  onSignedIn: (session: Session) => void;
  signUpCredits?: number;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [challenge, setChallenge] = useState<string | null>(null);
  const signUp = mode === 'sign-up';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const local: Errors = {};
    if (!EMAIL.test(email.trim())) local.email = 'Enter an email address such as name@example.com.';
    if (password.length === 0) local.password = 'Enter your password.';
    else if (signUp && password.length < MIN_PASSWORD) local.password = `Use at least ${MIN_PASSWORD} characters.`;
    setErrors(local);
    if (local.email || local.password) {
      document.getElementById(local.email ? 'email' : 'password')?.focus();
      return;
    }
    setBusy(true);
    try {
      const reply = signUp ? await dashboardApi.signUp(email.trim(), password) : await securityApi.signIn(email.trim(), password);
      if (isChallenge(reply)) {
        setChallenge(reply.challenge);
        setBusy(false);
      } else onSignedIn(reply);
    } catch (error) {
      setErrors(serverErrors(error));
      setBusy(false);
    }
  };

  if (challenge) {
    const restart = () => {
      setChallenge(null);
      setPassword('');
    };
    return <TwoFactorCodeForm challenge={challenge} onSignedIn={onSignedIn} onRestart={restart} />;
  }
  return (
    <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate>
      <Field
        id="email"
        label="Email"
        type="email"
        autoComplete={signUp ? 'email' : 'username'}
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.email}
        required
      />
      <Field
        id="password"
        label="Password"
        type="password"
        autoComplete={signUp ? 'new-password' : 'current-password'}
        hint={signUp ? `At least ${MIN_PASSWORD} characters. A long passphrase is best.` : undefined}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.password}
        required
      />
      <FormError message={errors.form ?? null} />
      <button type="submit" className="button button-primary button-wide" disabled={busy}>
        {busy ? (signUp ? 'Creating your account…' : 'Signing in…') : signUp ? 'Create account' : 'Sign in'}
      </button>
      {signUp && signUpCredits !== undefined && (
        <p className="hint center">
          New accounts start on the Free plan with {formatNumber(signUpCredits)} credits.
        </p>
      )}
    </form>
  );
}

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  return (
    <main id="main" className="auth">
      <PageHeading title="Sign in">Sign in</PageHeading>
      <p className="lead">Manage your API keys, webhooks and credits.</p>
      <CredentialsForm mode="sign-in" onSignedIn={onSignedIn} />
      <p className="center">
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p className="center">
        New here? <Link to="/sign-up">Create an account</Link>
      </p>
    </main>
  );
}

export function SignUpPage({ onSignedIn, terms }: { onSignedIn: (session: Session) => void; terms?: Session['sign_up'] }) {
  if (terms && !terms.enabled) {
    return (
      <main id="main" className="auth">
        <PageHeading title="Create an account">Create an account</PageHeading>
        <p className="lead">Sign-up is by invitation only on this deployment: ask a member of your team to invite you.</p>
        <p className="center">
          <Link to="/sign-in">Sign in</Link>
        </p>
      </main>
    );
  }
  return (
    <main id="main" className="auth">
      <PageHeading title="Create an account">Create an account</PageHeading>
      <p className="lead">Get API keys for image, video, audio and 3D generation.</p>
      <CredentialsForm mode="sign-up" onSignedIn={onSignedIn} signUpCredits={terms?.credits} />
      <p className="center">
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </main>
  );
}

/** "Forgot your password?": asks for a reset link by mail. The answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!EMAIL.test(email.trim())) {
      setError('Enter an email address such as name@example.com.');
      return;
    }
    setError(null);
    setBusy(true);
    try {
      setSent((await dashboardApi.requestPasswordReset(email.trim())).message);
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'Something went wrong. Please try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth">
      <PageHeading title="Forgot your password?">Forgot your password?</PageHeading>
      {sent ? (
        <div className="card auth-card" role="status">
          <p>{sent}</p>
          <p className="hint">Check your inbox (and spam folder). Choosing a new password signs you out everywhere.</p>
        </div>
      ) : (
        <>
          <p className="lead">We mail you a link to choose a new one.</p>
          <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate>
            <Field id="reset-email" label="Email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={error} required />
            <button type="submit" className="button button-primary button-wide" disabled={busy}>
              {busy ? 'Sending…' : 'Send me a link'}
            </button>
          </form>
        </>
      )}
      <p className="center">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </main>
  );
}

/** The page a reset link opens: choose the new password (the token is in the address). */
export function ResetPasswordPage({ token, onDone }: { token: string; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ new_password?: string; form?: string }>({});
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD) {
      setErrors({ new_password: `Use at least ${MIN_PASSWORD} characters.` });
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      await dashboardApi.completePasswordReset(token, password);
      setDone(true);
    } catch (err) {
      if (err instanceof ApiError && err.field === 'new_password') setErrors({ new_password: err.detail });
      else setErrors({ form: err instanceof ApiError ? err.detail : 'Something went wrong. Please try again.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth">
      <PageHeading title="Choose a new password">Choose a new password</PageHeading>
      {done ? (
        <div className="card auth-card" role="status">
          <p>Your password is changed, and every session was signed out.</p>
          <button type="button" className="button button-primary button-wide" onClick={onDone}>
            Sign in
          </button>
        </div>
      ) : (
        <form className="card auth-card" onSubmit={(e) => void submit(e)} noValidate>
          <Field
            id="new-password"
            label="New password"
            type="password"
            autoComplete="new-password"
            hint={`At least ${MIN_PASSWORD} characters. A long passphrase is best.`}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.new_password}
            required
          />
          <FormError message={errors.form ?? null} />
          <button type="submit" className="button button-primary button-wide" disabled={busy || token === ''}>
            {busy ? 'Saving…' : 'Set new password'}
          </button>
          {token === '' && <p className="form-error">This link is incomplete: open the link from the mail again.</p>}
        </form>
      )}
      <p className="center">
        <Link to="/forgot-password">Ask for a new link</Link>
      </p>
    </main>
  );
}
