import { useState } from 'react';
import { AUDIT_CSV_URL, AuditEntry, dashboardApi } from '../api/api';
import { PagedTable, useCursorPages } from '../components/paged-table';
import { SettingsNav } from '../components/settings-nav';
import { PageHeading } from '../components/ui';
import { formatDate } from '../lib/format';
import { useAsync } from '../lib/use-async';

const PAGE_SIZE = 50;

/** What each action means, in words. */
const ACTION_LABELS: Record<string, string> = {
  'account.created': 'Account created',
  'account.plan_changed': 'Plan changed',
  'account.credits_changed': 'Credits changed',
  'user.signed_up': 'Signed up',
  'user.signed_in': 'Signed in',
  'user.sign_in_failed': 'Failed sign-in',
  'user.password_changed': 'Password changed',
  'user.password_reset': 'Password reset (by mail)',
  'user.sessions_ended': 'Sessions ended',
  'key.created': 'Key created',
  'key.revoked': 'Key revoked',
  'key.webhook_url_set': 'Webhook URL set',
  'key.secret_generated': 'Signing secret generated',
  'key.secret_renewed': 'Signing secret renewed',
  'key.caps_set': 'Spending caps set',
  'key.webhook_scheme_set': 'Webhook signature scheme set',
  'key.secret_rotated': 'Signing secret rotated with overlap',
  'key.renamed': 'Key renamed',
  'key.scopes_changed': 'Key scopes changed',
  'member.invited': 'Member invited',
  'member.invitation_revoked': 'Invitation withdrawn',
  'member.joined': 'Member joined',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'account.ownership_transferred': 'Ownership transferred',
};

const label = (action: string) => ACTION_LABELS[action] ?? action;

/** The entry's details as short "name: value" text (the name of a key, a new cap, an amount). */
function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([name, value]) => `${name.replace(/_/g, ' ')}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');
}

function AuditRow({ entry }: { entry: AuditEntry }) {
  return (
    <tr data-action={entry.action}>
      <td data-label="When">{formatDate(entry.at)}</td>
      <td data-label="Who">
        {entry.actor_kind === 'operator' ? <span className="badge">Operator</span> : null} <span className="break">{entry.actor}</span>
      </td>
      <td data-label="Address">{entry.ip ? <span className="mono small">{entry.ip}</span> : <span className="muted">—</span>}</td>
      <td data-label="Action">
        <span className={entry.action === 'user.sign_in_failed' ? 'text-danger' : undefined}>{label(entry.action)}</span>
      </td>
      <td data-label="Details">
        <span className="small break">{[entry.target, detailsText(entry.details)].filter(Boolean).join(' · ') || '—'}</span>
      </td>
    </tr>
  );
}

/**
 * Settings, then Audit log: who did what to the account, when and from where (keys, secrets,
 * webhooks, caps, sign-ins, passwords, operator changes), filtered by actor and action, with a CSV
 * export of what the filters select. Entries cannot be changed or deleted.
 */
export function AuditPage() {
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const pages = useCursorPages();
  const { cursor } = pages;
  const [state, reload] = useAsync(() => dashboardApi.audit({ actor, action, cursor, limit: PAGE_SIZE }), [actor, action, cursor]);
  const filter = (next: { actor?: string; action?: string }) => {
    pages.reset();
    if (next.actor !== undefined) setActor(next.actor);
    if (next.action !== undefined) setAction(next.action);
  };
  const csv = `${AUDIT_CSV_URL}?${new URLSearchParams({ ...(actor ? { actor } : {}), ...(action ? { action } : {}) }).toString()}`;
  const filtered = actor !== '' || action !== '';

  return (
    <main id="main">
      <PageHeading title="Audit log">Settings</PageHeading>
      <SettingsNav />
      <p className="lead">
        Who did what to this account: keys, signing secrets, webhook URLs, spending caps, sign-ins and passwords, and changes an operator made. Entries
        cannot be changed or deleted, and are kept for the deployment's retention period (a year unless set otherwise).
      </p>
      <div className="section-head">
        <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the audit log">
          <div className="field">
            <label htmlFor="audit-actor">Who</label>
            <select id="audit-actor" value={actor} onChange={(e) => filter({ actor: e.target.value })}>
              <option value="">Anyone</option>
              {state.status === 'ready' &&
                state.data.actors.map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="audit-action">Action</label>
            <select id="audit-action" value={action} onChange={(e) => filter({ action: e.target.value })}>
              <option value="">Any action</option>
              {(state.status === 'ready' ? state.data.actions : Object.keys(ACTION_LABELS)).map((a) => (
                <option key={a} value={a}>
                  {label(a)}
                </option>
              ))}
            </select>
          </div>
          {filtered && (
            <button type="button" className="button button-secondary" onClick={() => filter({ actor: '', action: '' })}>
              Clear filters
            </button>
          )}
        </form>
        <a className="button button-secondary" href={csv} download>
          Export CSV
        </a>
      </div>
      <PagedTable
        state={state}
        reload={reload}
        pages={pages}
        emptyTitle={filtered ? 'No entries match these filters' : 'No entries yet'}
        className="audit"
        caption="Audit log, newest first"
        columns={['When', 'Who', 'Address', 'Action', 'Details']}
        pagerLabel="Audit log pages"
        row={(entry) => <AuditRow key={entry.id} entry={entry} />}
      />
    </main>
  );
}
