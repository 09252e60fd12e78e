import { useState } from 'react';
import { ApiError, canManageRole, dashboardApi, Invitation, Member, MEMBER_ROLES, MemberRole } from '../api/api';
import { InviteForm, ROLE_HINTS } from '../components/invite-form';
import { HeadRow } from '../components/list-parts';
import { SettingsNav } from '../components/settings-nav';
import { ConfirmDialog, FormError, Loading, LoadError, PageHeading } from '../components/ui';
import { formatDate } from '../lib/format';
import { useCan, useRole } from '../lib/role';
import { useAsync } from '../lib/use-async';

type Pending = { kind: 'remove' | 'transfer'; member: Member } | null;

function RoleCell({ member, onChange }: { member: Member; onChange: (role: MemberRole) => void }) {
  const role = useRole();
  const can = useCan();
  // Admins and owners change the roles they manage; their own only by leaving or (owners) transferring.
  if (!can('admin') || member.you || !canManageRole(role, member.role)) return <span className={`badge role-${member.role}`}>{member.role}</span>;
  return (
    <select aria-label={`Role of ${member.email}`} value={member.role} onChange={(e) => onChange(e.target.value as MemberRole)}>
      {MEMBER_ROLES.filter((r) => canManageRole(role, r)).map((r) => (
        <option key={r} value={r} title={ROLE_HINTS[r]}>
          {r}
        </option>
      ))}
    </select>
  );
}

function MemberActions({ member, lastOwner, onAsk }: { member: Member; lastOwner: boolean; onAsk: (pending: Pending) => void }) {
  const role = useRole();
  const can = useCan();
  return (
    <div className="actions">
      {role === 'owner' && !member.you && member.role !== 'owner' && (
        <button type="button" className="button button-link" onClick={() => onAsk({ kind: 'transfer', member })}>
          Make owner
        </button>
      )}
      {/* The last owner cannot leave (the server answers 409): they transfer ownership first. */}
      {((member.you && !lastOwner) || (!member.you && can('admin') && canManageRole(role, member.role))) && (
        <button type="button" className="button button-danger-outline" onClick={() => onAsk({ kind: 'remove', member })} aria-label={member.you ? 'Leave this account' : `Remove ${member.email}`}>
          {member.you ? 'Leave' : 'Remove'}
        </button>
      )}
    </div>
  );
}

function Invitations({ invitations, onWithdrawn }: { invitations: Invitation[]; onWithdrawn: () => void }) {
  if (invitations.length === 0) return null;
  return (
    <section className="section" aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      <ul className="plain invitations">
        {invitations.map((i) => (
          <li key={i.id} className="invitation-item">
            <span className="break">{i.email}</span> <span className={`badge role-${i.role}`}>{i.role}</span>{' '}
            <span className="muted small">{i.expired ? 'expired' : `until ${formatDate(i.expires_at)}`}{i.invited_by ? `, by ${i.invited_by}` : ''}</span>{' '}
            <button type="button" className="button button-link" onClick={() => void dashboardApi.withdrawInvitation(i.id).then(onWithdrawn)} aria-label={`Withdraw the invitation to ${i.email}`}>
              Withdraw
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Settings, then Members: who belongs to the account and with which role; invitations for owners and admins. */
export function MembersPage({ onSessionChanged }: { onSessionChanged: () => void }) {
  const [state, reload] = useAsync(() => dashboardApi.members(), []);
  const [pending, setPending] = useState<Pending>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Offered, on by default: a removed member's keys (which they may have copied) stop working too.
  const [revokeKeys, setRevokeKeys] = useState(true);
  const can = useCan();

  const act = async (action: () => Promise<unknown>, changesMe: boolean) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      setPending(null);
      if (changesMe) onSessionChanged();
      else reload();
    } catch (err) {
      setError(err instanceof ApiError ? err.detail : 'The change could not be made.');
      setPending(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main">
      <PageHeading title="Members">Settings</PageHeading>
      <SettingsNav />
      <p className="lead">Everyone who can sign in to this account, with their role. Roles: {MEMBER_ROLES.map((r) => `${r} (${ROLE_HINTS[r].toLowerCase()})`).join('; ')}.</p>
      {can('admin') && <InviteForm onInvited={reload} />}
      <FormError message={error} />
      {state.status === 'loading' && <Loading />}
      {state.status === 'error' && <LoadError message={state.error.detail} onRetry={reload} />}
      {state.status === 'ready' && (
        <>
          <section className="section" aria-labelledby="members-heading">
            <h2 id="members-heading">Members ({state.data.data.length})</h2>
            <div className="table-wrap">
              <table className="table responsive members">
                <HeadRow columns={['Member', 'Role', 'Joined', 'Last sign-in', 'Actions']} />
                <tbody>
                  {state.data.data.map((m) => (
                    <tr key={m.user_id} data-member={m.email}>
                      <td data-label="Member">
                        <span className="break">{m.email}</span> {m.you && <span className="muted small">(you)</span>}
                      </td>
                      <td data-label="Role">
                        <RoleCell member={m} onChange={(role) => void act(() => dashboardApi.changeRole(m.user_id, role), false)} />
                      </td>
                      <td data-label="Joined">{formatDate(m.joined_at)}</td>
                      <td data-label="Last sign-in">{m.last_sign_in_at ? formatDate(m.last_sign_in_at) : 'Never'}</td>
                      <td data-label="Actions">
                        <MemberActions member={m} lastOwner={m.role === 'owner' && state.data.data.filter((x) => x.role === 'owner').length === 1} onAsk={setPending} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <Invitations invitations={state.data.invitations} onWithdrawn={reload} />
        </>
      )}
      <ConfirmDialog
        open={pending?.kind === 'remove'}
        title={pending?.member.you ? 'Leave this account?' : `Remove ${pending?.member.email ?? ''}?`}
        confirmLabel={pending?.member.you ? 'Leave account' : 'Remove member'}
        danger
        busy={busy}
        onConfirm={() => pending && void act(() => dashboardApi.removeMember(pending.member.user_id, !pending.member.you && revokeKeys), pending.member.you)}
        onCancel={() => setPending(null)}
      >
        <p>
          {pending?.member.you
            ? 'You lose access to this account at once; an owner or admin can invite you again.'
            : 'Their sessions on this account end and the invitations they sent are withdrawn at once. They can be invited again.'}
        </p>
        {pending && !pending.member.you && (
          <div className="check">
            <input type="checkbox" id="revoke-keys" checked={revokeKeys} onChange={(e) => setRevokeKeys(e.target.checked)} />
            <label htmlFor="revoke-keys">Also revoke the API keys they created</label>
          </div>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={pending?.kind === 'transfer'}
        title={`Make ${pending?.member.email ?? ''} the owner?`}
        confirmLabel="Transfer ownership"
        busy={busy}
        onConfirm={() => pending && void act(() => dashboardApi.transferOwnership(pending.member.user_id), true)}
        onCancel={() => setPending(null)}
      >
        <p>They become an owner and you become an admin.</p>
      </ConfirmDialog>
    </main>
  );
}
