import { FormEvent, useState } from 'react';
import { ApiError, canManageRole, dashboardApi, MEMBER_ROLES, MemberRole } from '../api/api';
import { useRole } from '../lib/role';
import { Field, FormError, Notice } from './ui';

export const ROLE_HINTS: Record<MemberRole, string> = {
  owner: 'Everything, billing and every member',
  admin: 'Keys, secrets, webhooks, caps and members (not owners)',
  developer: 'Keys and the playground',
  viewer: 'Read only',
};

/** Invite someone by email with a role the signed-in member may give (owners: any; admins: all but owner). */
export function InviteForm({ onInvited }: { onInvited: () => void }) {
  const role = useRole();
  const roles = MEMBER_ROLES.filter((r) => canManageRole(role, r));
  const [email, setEmail] = useState('');
  const [invitedRole, setInvitedRole] = useState<MemberRole>('developer');
  const [error, setError] = useState<{ field: string | null; detail: string } | null>(null);
  const [sent, setSent] = useState<{ email: string; mailed: boolean } | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSent(null);
    try {
      const { mailed } = await dashboardApi.invite(email.trim(), invitedRole);
      setSent({ email: email.trim(), mailed });
      setEmail('');
      onInvited();
    } catch (err) {
      setError(err instanceof ApiError ? { field: err.field, detail: err.detail } : { field: null, detail: 'The invitation could not be sent.' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card section" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a member</h2>
      <form className="invite-form" onSubmit={(e) => void submit(e)} noValidate>
        <Field
          id="invite-email"
          label="Email"
          type="email"
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={error?.field === 'email' ? error.detail : undefined}
          required
        />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={invitedRole} onChange={(e) => setInvitedRole(e.target.value as MemberRole)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}: {ROLE_HINTS[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-primary" disabled={busy || email.trim() === ''}>
          {busy ? 'Sending…' : 'Send invitation'}
        </button>
      </form>
      <FormError message={error && error.field !== 'email' ? error.detail : null} />
      {sent && (
        <Notice tone={sent.mailed ? 'success' : 'warning'} title={sent.mailed ? `Invitation sent to ${sent.email}.` : `The invitation to ${sent.email} could not be mailed.`}>
          <p>{sent.mailed ? 'The link in the mail works once, for 72 hours by default.' : 'It is listed below; the server has no mail set up (SMTP_URL). Invite again once it has.'}</p>
        </Notice>
      )}
    </section>
  );
}
