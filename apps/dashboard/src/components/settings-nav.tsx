import { Link, useLocation } from '../router';

const TABS = [
  { to: '/settings/keys', label: 'API keys' },
  { to: '/settings/account', label: 'Account' },
  { to: '/settings/audit', label: 'Audit log' },
];

/** Settings' sections. */
export function SettingsNav() {
  const { path } = useLocation();
  return (
    <nav className="subnav" aria-label="Settings">
      {TABS.map((tab) => (
        <Link key={tab.to} to={tab.to} aria-current={path === tab.to ? 'page' : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
