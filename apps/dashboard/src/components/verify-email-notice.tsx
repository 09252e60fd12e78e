import { useState } from 'react';
import { ApiError } from '../api/api';
import { securityApi } from '../api/security-api';
import { Notice } from './ui';

/** Shown while the user's email is unverified: why it matters, and "send the mail again". */
export function VerifyEmailNotice({ email }: { email: string }) {
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const resend = async () => {
    setBusy(true);
    try {
      setMessage((await securityApi.resendVerification()).message);
    } catch (e) {
      setMessage(e instanceof ApiError ? e.detail : 'The mail could not be sent. Try again later.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Notice tone="warning" title="Verify your email address">
      <p>
        Follow the link in the mail we sent to <strong>{email}</strong>. Until you do, this deployment may not let you create API
        keys.
      </p>
      <p>
        <button type="button" className="button" onClick={() => void resend()} disabled={busy}>
          {busy ? 'Sending…' : 'Send the mail again'}
        </button>
      </p>
      {message && <p role="status">{message}</p>}
    </Notice>
  );
}
