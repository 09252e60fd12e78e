import type { MemberRole } from '../api/api';
import { useCan } from '../lib/role';
import { Link, useLocation } from '../lib/router';

const TABS: Array<{ to: string; label: string; needs: MemberRole }> = [
  { to: '/settings/keys', label: 'API keys', needs: 'viewer' },
  { to: '/settings/members', label: 'Members', needs: 'viewer' },
  { to: '/settings/account', label: 'Account', needs: 'viewer' },
  // The audit log is for owners and admins (the server refuses the others).
  { to: '/settings/audit', label: 'Audit log', needs: 'admin' },
];

/** Settings' sections. */
export function SettingsNav() {
  const { path } = useLocation();
  const can = useCan();
  return (
    <nav className="subnav" aria-label="Settings">
      {TABS.filter((tab) => can(tab.needs)).map((tab) => (
        <Link key={tab.to} to={tab.to} aria-current={path === tab.to ? 'page' : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
