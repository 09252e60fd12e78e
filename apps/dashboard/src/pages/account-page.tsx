import { useState } from 'react';
import { ApiError, dashboardApi, Session, SessionView } from '../api/api';
import { SettingsNav } from '../components/settings-nav';
import { TwoFactorSettings } from '../components/two-factor-settings';
import { InlineEditor } from '../components/inline-editor';
import { ConfirmDialog, Field, Loading, LoadError, Notice, PageHeading } from '../components/ui';
import { formatDate } from '../lib/format';
import { useAsync } from '../lib/use-async';
import { useCan } from '../lib/role';
import { LowBalanceSection } from './low-balance-section';

const MIN_PASSWORD = 10;

/** "Chrome on Linux" from a user agent, or the raw string when it is unusual. */
export function describeAgent(agent: string | null): string {
  if (!agent) return 'Unknown browser';
  const browser = /Edg\//.test(agent)
    ? 'Edge'
    : /OPR\//.test(agent)
      ? 'Opera'
      : /Firefox\//.test(agent)
        ? 'Firefox'
        : /(Chrome|Chromium|HeadlessChrome)\//.test(agent)
          ? 'Chrome'
          : /Safari\//.test(agent)
            ? 'Safari'
            : /curl\//.test(agent)
              ? 'curl'
              : null;
  const os = /Android/.test(agent)
    ? 'Android'
    : /iPhone|iPad/.test(agent)
      ? 'iOS'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X|Macintosh/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  if (!browser) return agent.length > 80 ? `${agent.slice(0, 80)}…` : agent;
  return os ? `${browser} on ${os}` : browser;
}

function PasswordForm({ email }: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');

  const validate = () => ({
    current_password: current === '' ? 'Enter your current password.' : undefined,
    new_password: next.length < MIN_PASSWORD ? `Use at least ${MIN_PASSWORD} characters.` : undefined,
    confirm: next.length >= MIN_PASSWORD && confirm !== next ? 'The two new passwords are not the same.' : undefined,
  });
  const save = async () => {
    const result = await dashboardApi.changePassword(current, next);
    setCurrent('');
    setNext('');
    setConfirm('');
    return result.ended_sessions === 0
      ? 'Password changed. You had no other sessions.'
      : `Password changed. ${result.ended_sessions} other session${result.ended_sessions === 1 ? ' was' : 's were'} signed out.`;
  };

  return (
    <InlineEditor
      variant="card"
      labelledBy="password-heading"
      fields={['current_password', 'new_password', 'confirm'] as const}
      failure="The password could not be changed."
      validate={validate}
      onSave={save}
      submitLabel="Change password"
      busyLabel="Changing…"
    >
      {(errors) => (
        <>
          <h2 id="password-heading">Change password</h2>
          {/* For password managers: the account the new password belongs to. */}
          <input type="email" autoComplete="username" value={email} readOnly hidden />
          <Field
            id="current-password"
            label="Current password"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            error={errors.current_password}
          />
          <Field
            id="new-password"
            label="New password"
            type="password"
            autoComplete="new-password"
            hint={`At least ${MIN_PASSWORD} characters. Your other sessions are signed out when it changes.`}
            value={next}
            onChange={(e) => setNext(e.target.value)}
            error={errors.new_password}
          />
          <Field
            id="confirm-password"
            label="New password again"
            type="password"
            autoComplete="new-password"
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
            error={errors.confirm}
          />
        </>
      )}
    </InlineEditor>
  );
}

function SessionItem({ session, onEnd }: { session: SessionView; onEnd: (s: SessionView) => void }) {
  const agent = describeAgent(session.user_agent);
  return (
    <li className="card session" data-current={session.current ? 'true' : undefined}>
      <div className="session-head">
        <h3>
          {agent} {session.current && <span className="badge badge-completed">This session</span>}
        </h3>
        {!session.current && (
          <button type="button" className="button button-danger-outline" onClick={() => onEnd(session)} aria-label={`Sign out ${agent} from ${session.ip ?? 'an unknown address'}`}>
            Sign out
          </button>
        )}
      </div>
      <dl className="key-meta small">
        <div>
          <dt>Address</dt>
          <dd className="mono">{session.ip ?? '—'}</dd>
        </div>
        <div>
          <dt>Signed in</dt>
          <dd>{formatDate(session.created_at)}</dd>
        </div>
        <div>
          <dt>Last active</dt>
          <dd>{formatDate(session.last_seen_at)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatDate(session.expires_at)}</dd>
        </div>
      </dl>
      {session.user_agent && session.user_agent !== agent && <p className="small muted break session-agent">{session.user_agent}</p>}
    </li>
  );
}

function Sessions() {
  const [state, reload] = useAsync(() => dashboardApi.sessions(), []);
  const [ending, setEnding] = useState<SessionView | 'others' | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const others = state.status === 'ready' ? state.data.data.filter((s) => !s.current).length : 0;

  const end = async () => {
    if (!ending) return;
    setBusy(true);
    try {
      if (ending === 'others') {
        const result = await dashboardApi.endOtherSessions();
        setMessage({ tone: 'ok', text: `${result.ended_sessions} other session${result.ended_sessions === 1 ? '' : 's'} signed out.` });
      } else {
        await dashboardApi.endSession(ending.id);
        setMessage({ tone: 'ok', text: `${describeAgent(ending.user_agent)} signed out.` });
      }
      reload();
    } catch (error) {
      setMessage({ tone: 'error', text: error instanceof ApiError ? error.detail : 'The session could not be ended.' });
    } finally {
      setBusy(false);
      setEnding(null);
    }
  };

  return (
    <section className="section" aria-labelledby="sessions-heading">
      <div className="section-head">
        <h2 id="sessions-heading">Sessions</h2>
        {others > 0 && (
          <button type="button" className="button button-secondary" onClick={() => setEnding('others')}>
            Sign out all other sessions
          </button>
        )}
      </div>
      <p className="hint">Where your account is signed in to this dashboard, most recently active first.</p>
      {message && (
        <p role={message.tone === 'error' ? 'alert' : 'status'} className={message.tone === 'error' ? 'form-error' : 'notice notice-success'}>
          {message.text}
        </p>
      )}
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && (
        <ul className="plain sessions">
          {state.data.data.map((s) => (
            <SessionItem key={s.id} session={s} onEnd={setEnding} />
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={ending !== null}
        title={ending === 'others' ? 'Sign out all other sessions?' : 'Sign out this session?'}
        confirmLabel="Sign out"
        danger
        busy={busy}
        onConfirm={() => void end()}
        onCancel={() => setEnding(null)}
      >
        <p>
          {ending === 'others'
            ? `Every session but this one (${others}) is signed out at once; they must sign in again.`
            : ending
              ? `${describeAgent(ending.user_agent)} (${ending.ip ?? 'unknown address'}) is signed out at once.`
              : ''}
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Settings, Account: the low-balance alert (owners and admins), password, two-factor sign-in and sessions. */
export function AccountPage({ session, onSessionChanged }: { session: Session; onSessionChanged: () => void }) {
  const can = useCan();
  return (
    <main id="main">
      <PageHeading title="Account">Settings</PageHeading>
      <SettingsNav />
      <p className="lead">
        Signed in as <strong>{session.user?.email}</strong>.
      </p>
      {can('admin') && <LowBalanceSection />}
      {session.user ? <PasswordForm email={session.user.email} /> : <Notice title="No user">Sign in again.</Notice>}
      <TwoFactorSettings session={session} onChanged={onSessionChanged} />
      <Sessions />
    </main>
  );
}
